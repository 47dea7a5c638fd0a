package io.weft.server.serverapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.EndReason;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import io.weft.server.testing.SocketClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link BayeuxServer#close()} as its documentation states it. */
class ServerCloseTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void aHeldLongPollIsAnsweredWithReconnectHandshake() {
        ScriptedClient client = ScriptedClient.connected(server, "b");
        CompletableFuture<String> held = client.heldConnect();
        assertFalse(held.isDone());
        server.close();
        assertTrue(held.isDone(), "the held /meta/connect is answered when the server closes");
        assertEquals("handshake", reconnect(connectReply(ScriptedClient.await(held))));
    }

    @Test
    void aHeldWebSocketConnectIsAnsweredWithReconnectHandshake() {
        SocketClient client = new SocketClient(InMemoryTransport.websocket(server), "b");
        client.handshake();
        client.connect();
        client.drain();
        server.close();
        Map<String, Object> reply = connectReply(client.drain());
        assertEquals("handshake", reconnect(reply), "the held /meta/connect is answered when the server closes");
    }

    @Test
    void everySessionEndsAndListenersAreToldItClosed() {
        List<EndReason> reasons = new CopyOnWriteArrayList<>();
        server.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionRemoved(ServerSession session, EndReason reason) {
                reasons.add(reason);
            }
        });
        for (String browser : List.of("a", "b", "c")) {
            ScriptedClient.connected(server, browser).heldConnect();
        }
        server.close();
        server.close();
        assertTrue(server.getSessions().isEmpty());
        assertEquals(List.of(EndReason.SERVER_CLOSED, EndReason.SERVER_CLOSED, EndReason.SERVER_CLOSED), reasons,
                "each session ends once, closing twice changes nothing");
    }

    @Test
    void aHandshakeAfterCloseIsRefusedWithServerClosing() {
        server.close();
        Map<String, Object> reply = ScriptedClient.of(server, "late").handshake();
        assertEquals(false, reply.get("successful"));
        assertEquals("503::server_closing", reply.get("error"));
        assertTrue(server.getSessions().isEmpty(), "no session is created by a closed server");
    }

    @Test
    void aClientOfAClosedServerIsToldToHandshake() {
        ScriptedClient client = ScriptedClient.connected(server, "b");
        server.close();
        Map<String, Object> reply = client.connectNow().get(0);
        assertEquals(false, reply.get("successful"));
        assertEquals("handshake", reconnect(reply));
    }

    @Test
    void nothingIsLeftScheduledOnceClosed() {
        ScriptedClient polling = ScriptedClient.connected(server, "a");
        polling.subscribe("/x");
        polling.heldConnect();
        SocketClient socket = new SocketClient(InMemoryTransport.websocket(server), "b");
        socket.handshake();
        socket.connect();
        server.close();
        scheduler.advance(server.getOptions().sweepPeriod());
        assertEquals(0, scheduler.pending(), "timers left after close");
    }

    private static Map<String, Object> connectReply(List<Map<String, Object>> messages) {
        return messages.stream().filter(m -> "/meta/connect".equals(m.get("channel"))).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no /meta/connect reply in " + messages));
    }

    private static Object reconnect(Map<String, Object> reply) {
        return reply.get("advice") instanceof Map<?, ?> advice ? advice.get("reconnect") : null;
    }
}
