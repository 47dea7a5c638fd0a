package io.weft.server.serverapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.EndReason;
import io.weft.server.api.LocalSession;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.InMemoryWire;
import io.weft.server.testing.Json;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import io.weft.server.testing.SocketClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link BayeuxServer#drain} as its documentation and docs/protocol.md ("Draining") state it, on a clock moved by hand. */
@Timeout(30)
class DrainTest {
    private static final long WINDOW = 10_000;

    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void aHandshakeWhileDrainingIsRefusedWithServerDrainingAndItsConnectionGoesAway() {
        server.drain(Duration.ofMillis(WINDOW));
        assertTrue(server.isDraining());
        InMemoryTransport.Exchange handshake = ((InMemoryWire) ScriptedClient.of(server, "late").wire())
                .exchange(Json.write(List.of(Map.of("channel", "/meta/handshake", "version", "1.0",
                        "supportedConnectionTypes", List.of("long-polling")))));
        Map<String, Object> reply = ScriptedClient.await(handshake.response()).get(0);
        assertEquals(false, reply.get("successful"));
        assertEquals("503::server_draining", reply.get("error"));
        assertEquals(Map.of("reconnect", "handshake", "interval", 1000), reply.get("advice"));
        assertTrue(handshake.wentAway(), "the response asks the client to close its connection");
        assertTrue(server.getSessions().isEmpty(), "no session is made while draining");
        assertEquals(Map.of("503::server_draining", 1L), server.getStats().handshakesRefused());
    }

    @Test
    void aHeldLongPollIsAnsweredAtItsMomentWithServerDrainingAndItsConnectionGoesAway() {
        List<EndReason> reasons = new CopyOnWriteArrayList<>();
        server.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionRemoved(ServerSession session, EndReason reason) {
                reasons.add(reason);
            }
        });
        ScriptedClient client = ScriptedClient.connected(server, "b");
        InMemoryTransport.Exchange held = client.connectExchange();
        server.drain(Duration.ofMillis(WINDOW));
        assertFalse(held.response().isDone(), "not at once: at the session's own moment");

        scheduler.advance(WINDOW - 1);
        Map<String, Object> reply = connectReply(ScriptedClient.await(held.response()));
        assertEquals(false, reply.get("successful"));
        assertEquals("503::server_draining", reply.get("error"));
        assertEquals("handshake", advice(reply).get("reconnect"));
        assertNull(advice(reply).get("timeout"));
        assertTrue(held.wentAway(), "the long-poll response carries Connection: close");
        assertNull(server.getSession(client.clientId()), "the session ended");
        assertEquals(List.of(EndReason.DRAINED), reasons);
        assertEquals(1, server.getStats().sessionsDrained());
        assertFalse(server.isClosed(), "the server closes at the end of the window, not before");
    }

    @Test
    void momentsAreSpreadEvenlyOverTheWindowNotAllAtOnce() {
        int sessions = 100;
        List<CompletableFuture<String>> held = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
            held.add(ScriptedClient.connected(server, "browser" + i).heldConnect());
        }
        server.drain(Duration.ofMillis(WINDOW));
        // 100 sessions over 10 s: one moment in each 100 ms slot, so each tenth of the window tells exactly ten. A
        // moment may fall on its slot's first millisecond, which is the last of a tenth: count just before it.
        long at = 0;
        for (int step = 1; step <= 10; step++) {
            long before = step * WINDOW / 10 - 1;
            scheduler.advance(before - at);
            at = before;
            long answered = held.stream().filter(CompletableFuture::isDone).count();
            assertEquals(step * sessions / 10, answered, "sessions told before " + (before + 1) + " ms");
        }
        scheduler.advance(WINDOW - at);
        for (CompletableFuture<String> response : held) {
            assertEquals("503::server_draining", connectReply(ScriptedClient.await(response)).get("error"));
        }
        assertEquals(sessions, server.getStats().sessionsDrained());
        assertTrue(server.isClosed());
    }

    @Test
    void whichSessionGoesWhenIsRandom() {
        List<String> first = orderOfDrain();
        List<String> second = orderOfDrain();
        assertEquals(first.size(), second.size());
        assertFalse(first.equals(second), "two drains of the same sessions in the same order: " + first);
    }

    /** The browsers of 20 sessions, in the order a drain of a server of their own ends them. */
    private static List<String> orderOfDrain() {
        ManualScheduler clock = new ManualScheduler();
        try (BayeuxServer own = BayeuxServer.create(ServerOptions.defaults(), clock)) {
            Map<String, String> browsers = new ConcurrentHashMap<>();
            List<String> order = new CopyOnWriteArrayList<>();
            own.addListener(new BayeuxServer.SessionListener() {
                @Override
                public void sessionRemoved(ServerSession session, EndReason reason) {
                    order.add(browsers.get(session.getId()));
                }
            });
            for (int i = 0; i < 20; i++) {
                ScriptedClient client = ScriptedClient.connected(own, "b" + i);
                browsers.put(client.clientId(), "b" + i);
                client.heldConnect();
            }
            own.drain(Duration.ofMillis(WINDOW));
            clock.advance(WINDOW - 1);
            return order;
        }
    }

    @Test
    void aSessionBetweenPollsIsToldOnItsNextConnect() {
        ScriptedClient client = ScriptedClient.connected(server, "b");
        server.drain(Duration.ofMillis(WINDOW));
        scheduler.advance(WINDOW - 1);
        assertNotNull(server.getSession(client.clientId()), "no connect held: the session waits for its next one");

        InMemoryTransport.Exchange next = client.connectExchange();
        Map<String, Object> reply = connectReply(ScriptedClient.await(next.response()));
        assertEquals("503::server_draining", reply.get("error"));
        assertEquals("handshake", advice(reply).get("reconnect"));
        assertTrue(next.wentAway());
        assertNull(server.getSession(client.clientId()));
    }

    @Test
    void aConnectAnsweredAtOnceCarriesWhatWasQueuedAndIsToldToHandshake() {
        ScriptedClient client = ScriptedClient.connected(server, "b");
        client.subscribe("/news");
        client.publish("/news", "before");
        server.drain(Duration.ofMillis(WINDOW));
        scheduler.advance(WINDOW - 1);

        InMemoryTransport.Exchange next = ((InMemoryWire) client.wire()).exchange(Json.write(List.of(
                client.message("/meta/connect", "connectionType", "long-polling", "advice", Map.of("timeout", 0)))));
        List<Map<String, Object>> answer = ScriptedClient.await(next.response());
        assertEquals("before", answer.get(0).get("data"), "what was queued still leaves: " + answer);
        assertEquals("503::server_draining", connectReply(answer).get("error"));
        assertTrue(next.wentAway());
        assertNull(server.getSession(client.clientId()));
    }

    @Test
    void aHeldWebSocketConnectIsAnsweredAndTheSocketGoesAway() {
        SocketClient client = new SocketClient(InMemoryTransport.websocket(server), "b");
        client.handshake();
        client.connect();
        client.drain();
        server.drain(Duration.ofMillis(WINDOW));
        scheduler.advance(WINDOW - 1);

        Map<String, Object> reply = connectReply(client.drain());
        assertEquals("503::server_draining", reply.get("error"));
        assertEquals("handshake", advice(reply).get("reconnect"));
        assertTrue(client.socket().wentAway(), "the socket is closed as going away (1001) once the reply is written");
        assertNull(server.getSession(client.clientId()));
    }

    @Test
    void theServerClosesAtTheEndOfTheWindowAndTheDrainCompletesThen() {
        LocalSession service = server.newLocalSession("service");
        service.handshake();
        CompletionStage<Void> drained = server.drain(Duration.ofMillis(WINDOW));
        scheduler.advance(WINDOW - 1);
        assertFalse(drained.toCompletableFuture().isDone());
        assertFalse(server.isClosed());
        assertTrue(service.isConnected(), "a local session is server code: not drained");

        scheduler.advance(1);
        assertTrue(server.isClosed());
        assertTrue(drained.toCompletableFuture().isDone());
        assertFalse(service.isConnected(), "it ends with the close");
    }

    @Test
    void aSecondDrainChangesNothingAndADrainAfterCloseIsANoOp() {
        CompletionStage<Void> first = server.drain(Duration.ofMillis(WINDOW));
        scheduler.advance(WINDOW / 2);
        CompletionStage<Void> second = server.drain(Duration.ofMinutes(10));
        scheduler.advance(WINDOW / 2);
        assertTrue(server.isClosed(), "the first drain's window holds");
        assertTrue(first.toCompletableFuture().isDone());
        assertTrue(second.toCompletableFuture().isDone());

        ManualScheduler clock = new ManualScheduler();
        BayeuxServer closed = BayeuxServer.create(ServerOptions.defaults(), clock);
        closed.close();
        int pending = clock.pending();
        assertTrue(closed.drain(Duration.ofMillis(WINDOW)).toCompletableFuture().isDone());
        assertFalse(closed.isDraining());
        assertEquals(pending, clock.pending(), "nothing scheduled by a drain after close");
    }

    @Test
    void closingDuringTheDrainCompletesIt() {
        CompletionStage<Void> drained = server.drain(Duration.ofMillis(WINDOW));
        server.close();
        assertTrue(drained.toCompletableFuture().isDone());
    }

    @Test
    void aZeroWindowDrainsEverySessionAtOnceAndCloses() {
        CompletableFuture<String> held = ScriptedClient.connected(server, "b").heldConnect();
        server.drain(Duration.ZERO);
        scheduler.advance(0);
        assertEquals("503::server_draining", connectReply(ScriptedClient.await(held)).get("error"),
                "drained before the close answers it with server_closing");
        assertTrue(server.isClosed());
    }

    @Test
    void aNegativeWindowIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> server.drain(Duration.ofMillis(-1)));
        assertFalse(server.isDraining());
    }

    @Test
    void theDrainCompletionCannotBeCompletedByItsCaller() {
        CompletionStage<Void> drained = server.drain(Duration.ofMillis(WINDOW));
        drained.toCompletableFuture().complete(null);
        assertFalse(server.isClosed());
        assertNotSameStage(drained, server.drain(Duration.ofMillis(WINDOW)));
    }

    private static void assertNotSameStage(CompletionStage<Void> a, CompletionStage<Void> b) {
        assertFalse(b.toCompletableFuture().isDone(), "a caller's completion does not reach other callers");
        assertFalse(a == b);
    }

    private static Map<String, Object> connectReply(List<Map<String, Object>> messages) {
        return messages.stream().filter(m -> "/meta/connect".equals(m.get("channel"))).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no /meta/connect reply in " + messages));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> advice(Map<String, Object> reply) {
        Object advice = reply.get("advice");
        assertTrue(advice instanceof Map, "advice in " + reply);
        return (Map<String, Object>) advice;
    }
}
