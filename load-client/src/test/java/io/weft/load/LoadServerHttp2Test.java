package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.client.transport.HttpClientTransportOverHTTP2;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The load server's connector speaks h2c beside HTTP/1.1: a Bayeux handshake over Jetty's HTTP/2 client. */
@Timeout(30)
class LoadServerHttp2Test {
    @Test
    void aHandshakeOverH2cIsAnswered() throws Exception {
        try (LoadServer.Running server = LoadServer.start("127.0.0.1", 0, "/cometd", 16, ServerOptions.defaults(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))) {
            HttpClient h2c = new HttpClient(new HttpClientTransportOverHTTP2(new HTTP2Client()));
            h2c.start();
            try {
                ContentResponse response = h2c.POST("http://127.0.0.1:" + server.port() + "/cometd")
                        .body(new StringRequestContent("application/json", "[{\"channel\":\"/meta/handshake\","
                                + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]"))
                        .timeout(10, TimeUnit.SECONDS).send();
                assertEquals(200, response.getStatus());
                assertEquals(HttpVersion.HTTP_2, response.getVersion());
                assertTrue(response.getContentAsString().contains("\"successful\":true"), response.getContentAsString());
            } finally {
                h2c.stop();
            }
        }
    }
}
