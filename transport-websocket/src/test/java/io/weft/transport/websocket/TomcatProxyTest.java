package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ClientRequest;
import io.weft.server.testing.ScriptedClient;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.catalina.valves.RemoteIpValve;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Behind a TLS-terminating proxy, in Tomcat: where the deployment trusts the proxy (Tomcat's {@link RemoteIpValve}),
 * the origin check, the cookie's {@code Secure} flag (on the HTTP handshake's reply: a 101 sets none) and the client's
 * address use the forwarded values; where it does not, forwarded headers change nothing.
 */
@Timeout(30)
class TomcatProxyTest {
    @RegisterExtension
    static final Clients clients = new Clients();
    private TomcatServer server;

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    /** An upgrade as nginx passes it on for a page of {@code https://chat.example.com}, from 203.0.113.7. */
    private RawSocket throughProxy() throws Exception {
        RawSocket socket = new RawSocket();
        ClientUpgradeRequest request = new ClientUpgradeRequest();
        request.setHeader("Origin", "https://chat.example.com");
        request.setHeader("X-Forwarded-Proto", "https");
        request.setHeader("X-Forwarded-Host", "chat.example.com");
        request.setHeader("X-Forwarded-For", "203.0.113.7");
        clients.webSocket().connect(socket, server.wsUri(), request).get(5, TimeUnit.SECONDS);
        return socket;
    }

    @Test
    void behindATrustedProxyTheForwardedSchemeHostAndAddressCount() throws Exception {
        server = TomcatServer.start(context -> {
            RemoteIpValve proxy = new RemoteIpValve();
            proxy.setInternalProxies("127\\.0\\.0\\.1");
            proxy.setRemoteIpHeader("X-Forwarded-For");
            proxy.setProtocolHeader("X-Forwarded-Proto");
            proxy.setHostHeader("X-Forwarded-Host");
            context.getPipeline().addValve(proxy);
        });
        ContentResponse handshake = clients.http().newRequest(server.httpUri()).method("POST")
                .headers(headers -> headers.put("Origin", "https://chat.example.com")
                        .put("X-Forwarded-Proto", "https").put("X-Forwarded-Host", "chat.example.com")
                        .put("X-Forwarded-For", "203.0.113.7"))
                .body(new StringRequestContent("application/json", "[{\"channel\":\"/meta/handshake\","
                        + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]"))
                .send();
        List<String> cookies = handshake.getHeaders().getValuesList("Set-Cookie");
        assertEquals(1, cookies.size(), cookies + " " + handshake.getContentAsString());
        assertTrue(cookies.get(0).contains("Secure"), "the browser reached the proxy over HTTPS: " + cookies);
        try (ScriptedClient client = new ScriptedClient(throughProxy())) {
            client.handshake();
            ClientRequest upgrade = server.bayeux().getSession(client.clientId()).getRequest();
            assertEquals("203.0.113.7", upgrade.getRemoteAddress().getAddress().getHostAddress());
            assertTrue(upgrade.isSecure());
        }
    }

    @Test
    void forwardedHeadersFromAnUntrustedPeerChangeNothing() throws Exception {
        server = TomcatServer.start();
        ExecutionException refused = assertThrows(ExecutionException.class, this::throughProxy);
        assertEquals(403, OriginTest.refusedWith(refused), "the page's origin is not this server's own");
    }
}
