package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.weft.server.api.ServerOptions;
import io.weft.server.testing.ScriptedClient;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code requireHandshakePerConnection}: a socket acts only for the sessions it handshook itself. */
@Timeout(30)
class HandshakePerConnectionTest {
    private static final String BROWSER = "BAYEUX_BROWSER=same";
    @RegisterExtension
    static final Clients clients = new Clients();
    private EmbeddedServer server;

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    private ScriptedClient client() throws Exception {
        return new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri(), BROWSER));
    }

    @Test
    void newSocketMustHandshakeWhenRequired() throws Exception {
        server = EmbeddedServer.start(ServerOptions.builder().requireHandshakePerConnection(true).build());
        try (ScriptedClient first = client(); ScriptedClient second = client()) {
            first.handshake();
            first.connect();
            first.subscribe("/chat/room7");

            second.resume(first.clientId());
            Map<String, Object> refused = second.connect();
            assertEquals("402::session_unknown", refused.get("error"), refused.toString());
            assertEquals("handshake", ((Map<?, ?>) refused.get("advice")).get("reconnect"));
            assertEquals("402::session_unknown", second.publish("/chat/room7", "not mine").get("error"));

            second.resume(null).handshake();
            assertNotEquals(first.clientId(), second.clientId());
            assertEquals(true, second.connect().get("successful"));
            assertEquals(true, second.publish("/chat/room7", "own session").get("successful"));
            first.awaitDelivery("/chat/room7", "own session");
        }
    }

    @Test
    void newSocketMayResumeBySessionWhenNotRequired() throws Exception {
        server = EmbeddedServer.start();
        try (ScriptedClient first = client(); ScriptedClient second = client()) {
            first.handshake();
            first.connect();

            second.resume(first.clientId());
            assertEquals(true, second.connect().get("successful"));
        }
    }
}
