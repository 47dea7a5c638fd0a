package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import io.weft.server.testing.SocketClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code requireHandshakePerConnection} is the engine's rule, whatever the transport: a persistent connection acts
 * only for the sessions handshaken on it; polling requests, one per exchange, are not bound by it.
 */
class HandshakePerConnectionTest {
    private final BayeuxServer server = BayeuxServer.create(
            ServerOptions.builder().requireHandshakePerConnection(true).build(), new ManualScheduler());

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void aSocketActsOnlyForTheSessionsHandshakenOnIt() {
        InMemoryTransport websocket = InMemoryTransport.websocket(server);
        SocketClient owner = new SocketClient(websocket, "same");
        owner.handshake();
        SocketClient other = new SocketClient(websocket, "same");
        other.useClientId(owner.clientId());

        other.subscribe("/chat/a");
        Map<String, Object> refused = other.next().get(0);
        assertEquals("402::session_unknown", refused.get("error"), refused.toString());
        assertEquals("handshake", ((Map<?, ?>) refused.get("advice")).get("reconnect"));
        assertEquals(0, server.getSession(owner.clientId()).getSubscriptions().size(), "nothing done for it");

        owner.subscribe("/chat/a");
        assertEquals(true, owner.next().get(0).get("successful"), "its own socket may");
        other.handshake();
        other.subscribe("/chat/b");
        assertEquals(true, other.next().get(0).get("successful"), "after a handshake of its own");
    }

    @Test
    void pollingRequestsAreNotBoundToTheirConnection() {
        ScriptedClient client = ScriptedClient.connected(server, "b");
        List<Map<String, Object>> replies = client.publishJson("/chat/a", "1");
        assertEquals(true, replies.get(0).get("successful"), replies.toString());
    }
}
