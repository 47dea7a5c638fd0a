package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A whole client life over the in-memory polling transport, JSON in and JSON out. */
class ConversationTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void handshakeConnectSubscribePublishReceiveUnsubscribeDisconnect() {
        ScriptedClient alice = ScriptedClient.of(server, "browser-a");
        Map<String, Object> handshake = alice.handshake();
        assertEquals("/meta/handshake", handshake.get("channel"));
        assertEquals(true, handshake.get("successful"));
        assertEquals("1", handshake.get("id"));
        assertEquals("1.0", handshake.get("version"));
        assertEquals(List.of("long-polling"), handshake.get("supportedConnectionTypes"));
        assertEquals(Map.of("reconnect", "retry", "interval", 0, "timeout", 20000), handshake.get("advice"));
        assertNotNull(alice.clientId());

        List<Map<String, Object>> connect = alice.connectNow();
        assertEquals(1, connect.size());
        assertEquals("/meta/connect", connect.get(0).get("channel"));
        assertEquals(true, connect.get(0).get("successful"));

        Map<String, Object> subscribe = alice.subscribe("/chat/room");
        assertEquals(true, subscribe.get("successful"));
        assertEquals("/chat/room", subscribe.get("subscription"));

        CompletableFuture<String> held = alice.heldConnect();
        assertFalse(held.isDone(), "a connect with nothing queued is held");

        ScriptedClient bob = ScriptedClient.of(server, "browser-b");
        bob.handshake();
        List<Map<String, Object>> published = bob.publishJson("/chat/room", "{\"text\":\"hi\"}");
        assertEquals(Map.of("channel", "/chat/room", "successful", true, "id", "2"), published.get(0));

        List<Map<String, Object>> delivered = ScriptedClient.await(held);
        assertEquals(2, delivered.size(), "the message, then the connect reply");
        assertEquals(Map.of("channel", "/chat/room", "data", Map.of("text", "hi")), delivered.get(0));
        assertEquals("/meta/connect", delivered.get(1).get("channel"));
        assertEquals(true, delivered.get(1).get("successful"));

        assertEquals(true, alice.unsubscribe("/chat/room").get("successful"));
        bob.publishJson("/chat/room", "\"again\"");
        assertTrue(alice.connectNow().stream().noneMatch(m -> "/chat/room".equals(m.get("channel"))));

        Map<String, Object> disconnect = alice.disconnect();
        assertEquals(true, disconnect.get("successful"));
        assertEquals(null, server.getSession(alice.clientId()));
    }
}
