package io.weft.examples.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.client.transport.HttpClientTransportOverHTTP2;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The demo's connector speaks h2c beside HTTP/1.1: its page and a Bayeux handshake over Jetty's HTTP/2 client. */
@Timeout(30)
class ChatServerHttp2Test {
    @Test
    void thePageAndAHandshakeOverH2cAreAnswered() throws Exception {
        try (ChatServer server = ChatServer.start(ChatServer.Settings.of(0))) {
            HttpClient h2c = new HttpClient(new HttpClientTransportOverHTTP2(new HTTP2Client()));
            h2c.start();
            try {
                ContentResponse page = h2c.GET(server.baseUrl() + "/");
                assertEquals(200, page.getStatus());
                assertEquals(HttpVersion.HTTP_2, page.getVersion());
                ContentResponse handshake = h2c.POST(server.baseUrl() + ChatServer.BAYEUX_PATH)
                        .body(new StringRequestContent("application/json", "[{\"channel\":\"/meta/handshake\","
                                + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]"))
                        .timeout(10, TimeUnit.SECONDS).send();
                assertEquals(HttpVersion.HTTP_2, handshake.getVersion());
                assertTrue(handshake.getContentAsString().contains("\"successful\":true"),
                        handshake.getContentAsString());
            } finally {
                h2c.stop();
            }
        }
    }
}
