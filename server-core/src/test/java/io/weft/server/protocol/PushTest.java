package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.SocketClient;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Persistent connections (the websocket shape): deliveries are pushed, /meta/connect is the heartbeat. */
class PushTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);
    private InMemoryTransport transport = InMemoryTransport.websocket(server);

    @AfterEach
    void close() {
        server.close();
    }

    private void restart(ServerOptions options) {
        server.close();
        server = BayeuxServer.create(options, scheduler);
        transport = InMemoryTransport.websocket(server);
    }

    private SocketClient connected(String browser, String subscription) {
        SocketClient client = new SocketClient(transport, browser);
        client.handshake();
        client.connectNow();
        client.next();
        if (subscription != null) {
            client.subscribe(subscription);
            client.next();
        }
        client.connect();
        return client;
    }

    private static List<Object> data(List<Map<String, Object>> messages) {
        return messages.stream().filter(m -> m.containsKey("data")).map(m -> m.get("data")).collect(Collectors.toList());
    }

    @Test
    void messagesArePushedWhileTheConnectStaysHeld() {
        SocketClient alice = connected("a", "/room");
        SocketClient bob = connected("b", null);
        bob.publish("/room", "\"hello\"");
        List<Map<String, Object>> frame = alice.next();
        assertEquals(List.of("hello"), data(frame));
        assertTrue(alice.socket().frames().isEmpty(), "the connect is still held");
        scheduler.advance(20_000);
        assertEquals("/meta/connect", alice.next().get(0).get("channel"));
    }

    @Test
    void aBatchOfPublishesLeavesInOneFrame() {
        SocketClient alice = connected("a", "/room");
        SocketClient bob = connected("b", null);
        bob.send("[" + "{\"channel\":\"/room\",\"data\":1,\"clientId\":\"" + bob.clientId() + "\"},"
                + "{\"channel\":\"/room\",\"data\":2,\"clientId\":\"" + bob.clientId() + "\"},"
                + "{\"channel\":\"/room\",\"data\":3,\"clientId\":\"" + bob.clientId() + "\"}]");
        assertEquals(List.of(1, 2, 3), data(alice.next()));
    }

    @Test
    void framesHoldAtMostMaxMessagesPerFrame() {
        restart(ServerOptions.builder().maxMessagesPerFrame(2).build());
        SocketClient alice = connected("a", "/room");
        SocketClient bob = connected("b", null);
        StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i < 5; i++) {
            batch.append(i == 0 ? "" : ",").append("{\"channel\":\"/room\",\"data\":").append(i)
                    .append(",\"clientId\":\"").append(bob.clientId()).append("\"}");
        }
        bob.send(batch.append("]").toString());
        assertEquals(List.of(0, 1), data(alice.next()));
        assertEquals(List.of(2, 3), data(alice.next()));
        assertEquals(List.of(4), data(alice.next()));
    }

    @Test
    void aClientThatStopsReadingHoldsBackOnlyItsOwnQueue() {
        SocketClient slow = connected("slow", "/room");
        SocketClient fast = connected("fast", "/room");
        SocketClient publisher = connected("p", null);
        slow.socket().pause();
        for (int i = 0; i < 20; i++) {
            publisher.publish("/room", String.valueOf(i));
        }
        List<Object> fastGot = data(fast.drain());
        assertEquals(20, fastGot.size());
        assertEquals(1, slow.socket().frames().size(), "one write in flight, the rest queued");
        assertEquals(19, server.getSession(slow.clientId()).getQueueSize());
        slow.socket().resume();
        assertEquals(20, data(slow.drain()).size());
    }

    @Test
    void closingTheSocketDoesNotEndTheSessionUntilMaxInterval() {
        SocketClient alice = connected("a", "/room");
        alice.socket().close();
        connected("b", null).publish("/room", "1");
        assertNotNull(server.getSession(alice.clientId()));
        assertEquals(1, server.getSession(alice.clientId()).getQueueSize());
        scheduler.advance(10_000);
        assertNull(server.getSession(alice.clientId()));
    }

    @Test
    void aNewSocketResumesTheSessionAndGetsWhatWasQueued() {
        SocketClient alice = connected("a", "/room");
        alice.socket().close();
        connected("b", null).publish("/room", "\"while away\"");
        SocketClient reloaded = new SocketClient(transport, "a");
        reloaded.useClientId(alice.clientId());
        reloaded.connect();
        assertEquals(List.of("while away"), data(reloaded.next()));
    }

    @Test
    void aNewSocketFromAnotherBrowserCannotTakeTheSession() {
        SocketClient alice = connected("a", "/room");
        SocketClient thief = new SocketClient(transport, "thief");
        thief.useClientId(alice.clientId());
        thief.connect();
        assertEquals("402::session_unknown", thief.next().get(0).get("error"));
        SocketClient cookieless = new SocketClient(transport, null);
        cookieless.useClientId(alice.clientId());
        cookieless.connect();
        assertEquals("402::session_unknown", cookieless.next().get(0).get("error"));
    }

    @Test
    void cookielessClientsResumeByClientId() {
        SocketClient node = connected(null, "/room");
        node.socket().close();
        SocketClient again = new SocketClient(transport, null);
        again.useClientId(node.clientId());
        again.connectNow();
        assertEquals(true, again.next().get(0).get("successful"));
    }

    @Test
    void deliveryOnConnectOnlyHoldsMessagesForTheConnectReply() {
        restart(ServerOptions.builder().metaConnectDeliveryOnly(true).build());
        SocketClient alice = connected("a", "/room");
        connected("b", null).publish("/room", "\"x\"");
        List<Map<String, Object>> frame = alice.next();
        assertEquals(List.of("x"), data(frame));
        assertEquals("/meta/connect", frame.get(frame.size() - 1).get("channel"), "delivered with the connect reply");
    }

    @Test
    void theServerCanDisconnectASessionAndTheClientIsTold() {
        SocketClient alice = connected("a", "/room");
        server.getSession(alice.clientId()).disconnect();
        List<Map<String, Object>> frame = alice.next();
        assertEquals("/meta/disconnect", frame.get(0).get("channel"));
        Map<?, ?> advice = (Map<?, ?>) frame.get(1).get("advice");
        assertEquals("none", advice.get("reconnect"));
        assertNull(server.getSession(alice.clientId()));
    }
}
