package io.weft.server.serverapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Limit;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.api.ServerStats;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import io.weft.server.testing.SocketClient;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link BayeuxServer#getStats()} under scripted conversations, on a pushing transport (websocket) and a polling one
 * (long-polling): each counter moves by exactly what the conversation did, and the gauges show the moment.
 */
class StatsTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServer server;

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void aConversationOverWebsocketMovesEachCounterByWhatItDid() {
        server = BayeuxServer.create(ServerOptions.defaults(), scheduler);
        server.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canHandshake(BayeuxServer bayeux, ServerSession session, Message message) {
                return !"mallory".equals(message.getExt() == null ? null : message.getExt().get("user"));
            }
        });
        InMemoryTransport websocket = InMemoryTransport.websocket(server);
        SocketClient alice = new SocketClient(websocket, "alice");
        SocketClient bob = new SocketClient(websocket, "bob");
        alice.handshake();
        alice.connect(); // held
        alice.subscribe("/chat/a");
        bob.handshake();
        bob.subscribe("/chat/a");
        bob.subscribe("/chat/b");
        SocketClient mallory = new SocketClient(websocket, "mallory");
        mallory.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"],"
                + "\"ext\":{\"user\":\"mallory\"}}]");
        mallory.next();
        SocketClient stranger = new SocketClient(websocket, "stranger");
        stranger.useClientId("nobody");
        stranger.publish("/chat/a", "1");
        stranger.next();

        bob.publish("/chat/a", "\"hello\"");
        bob.publish("/chat/b", "\"to myself\"");

        ServerStats stats = server.getStats();
        long framesWritten = alice.bytesReceived() + bob.bytesReceived() + mallory.bytesReceived()
                + stranger.bytesReceived();
        assertEquals(Map.of("websocket", 1, "none", 1), stats.sessionsByConnectionType(), "bob has not connected");
        assertEquals(1, stats.heldConnects(), stats.toString());
        assertEquals(3, stats.subscriptions());
        assertEquals(3, stats.channels(), "/chat/a, /chat/b and their parent /chat");
        assertEquals(2, stats.handshakesAccepted());
        assertEquals(Map.of("403::handshake_denied", 1L), stats.handshakesRefused());
        assertEquals(3, stats.messagesReceived(), "two publishes, and the stranger's");
        assertEquals(Map.of("websocket", 3L), stats.deliveriesByConnectionType(),
                "hello to alice and bob (broadcastToPublisher), to myself to bob");
        assertEquals(Map.of("403::handshake_denied", 1L, "402::session_unknown", 1L), stats.errorsByReason());
        assertEquals(0, stats.slowConsumerDisconnects());
        assertEquals(3, stats.deliveryLatency().count(), "each delivery's time since its publish");
        assertEquals(Map.of("websocket", framesWritten), stats.bytesWrittenByConnectionType(),
                "every frame's bytes, replies and deliveries");
        assertTrue(stats.deliveryLatency().max() >= stats.deliveryLatency().p50(), stats.deliveryLatency().toString());
    }

    @Test
    void aConversationOverLongPollingMovesEachCounterByWhatItDid() {
        server = BayeuxServer.create(ServerOptions.defaults(), scheduler);
        ScriptedClient alice = ScriptedClient.connected(server, "alice");
        alice.subscribe("/news");
        var held = alice.heldConnect();
        ScriptedClient bob = ScriptedClient.connected(server, "bob");

        ServerStats before = server.getStats();
        assertEquals(Map.of("long-polling", 2), before.sessionsByConnectionType());
        assertEquals(1, before.heldConnects());

        bob.publishJson("/news", "\"extra\"");
        ScriptedClient.await(held);

        ServerStats stats = server.getStats();
        long responsesWritten = alice.bytesReceived() + bob.bytesReceived();
        assertEquals(0, stats.heldConnects(), "the held connect was answered with the delivery");
        assertEquals(2, stats.handshakesAccepted());
        assertEquals(1, stats.messagesReceived());
        assertEquals(Map.of("long-polling", 1L), stats.deliveriesByConnectionType());
        assertEquals(1, stats.deliveryLatency().count());
        assertEquals(Map.of(), stats.errorsByReason());
        assertEquals(Map.of("long-polling", responsesWritten), stats.bytesWrittenByConnectionType());
        assertEquals(1, stats.subscriptions());
    }

    @Test
    void slowConsumersAndDroppedMessagesAreCounted() {
        server = BayeuxServer.create(ServerOptions.builder().maxQueue(2)
                .queueOverflow(ServerOptions.OverflowPolicy.DISCONNECT).build(), scheduler);
        ScriptedClient slow = ScriptedClient.connected(server, "slow");
        slow.subscribe("/flood");
        ScriptedClient publisher = ScriptedClient.connected(server, "publisher");
        for (int i = 0; i < 3; i++) {
            publisher.publishJson("/flood", String.valueOf(i));
        }

        ServerStats stats = server.getStats();
        assertEquals(1, stats.slowConsumerDisconnects());
        assertEquals(1L, stats.refusals().get(Limit.QUEUE));
        assertEquals(1, stats.sessions(), "the slow consumer's session ended");
    }
}
