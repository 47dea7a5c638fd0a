package io.weft.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import io.weft.client.RecoveryExtension.Position;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The client side of history and recovery (docs/protocol.md, "History and recovery"). */
@Timeout(30)
class RecoveryExtensionTest {
    private static Message.Mutable delivered(String channel, String epoch, long offset) {
        Message.Mutable message = Messages.of(channel);
        message.setData(Map.of("n", offset));
        message.getExt(true).put("history", Map.of("epoch", epoch, "offset", offset));
        return message;
    }

    private static Map<String, Object> position(String epoch, long offset) {
        return Map.of("epoch", epoch, "offset", offset);
    }

    private static Map<String, Object> position(String epoch, long offset, boolean recovered) {
        return Map.of("epoch", epoch, "offset", offset, "recovered", recovered);
    }

    private static Message.Mutable subscribeReply(String subscription, Map<String, Object> recover) {
        Message.Mutable reply = Messages.of("/meta/subscribe");
        reply.setSuccessful(true);
        reply.put(Message.SUBSCRIPTION, subscription);
        if (recover != null) {
            reply.getExt(true).put("recover", new LinkedHashMap<>(recover));
        }
        return reply;
    }

    /** The extension alone, fed messages as the wire would. */
    @Nested
    class Alone {
        private final List<Recovery> told = new ArrayList<>();
        private final RecoveryExtension recovery = new RecoveryExtension(List.of((client, r) -> told.add(r)));

        @Test
        void aMessageIsNewWhenPastThePositionKeptInItsEpochOrOfAnotherEpoch() {
            assertTrue(recovery.incoming(null, Messages.of(Map.of("channel", "/a", "data", 1))), "no position");
            assertTrue(recovery.incoming(null, delivered("/a", "E", 2)));
            assertFalse(recovery.incoming(null, delivered("/a", "E", 2)), "the same again");
            assertFalse(recovery.incoming(null, delivered("/a", "E", 1)), "an older one");
            assertTrue(recovery.incoming(null, delivered("/b", "E", 1)), "another channel");
            assertTrue(recovery.incoming(null, delivered("/a", "F", 1)), "another epoch");
            assertEquals(new Position("F", 1), recovery.position("/a"));
        }

        @Test
        void aSubscribeCarriesThePositionsToRecoverFrom() {
            recovery.incoming(null, delivered("/chat/a", "E", 4));
            recovery.incoming(null, delivered("/chat/b", "E", 7));
            recovery.incoming(null, delivered("/news", "N", 1));

            Message.Mutable concrete = Messages.of("/meta/subscribe");
            concrete.put(Message.SUBSCRIPTION, "/chat/a");
            recovery.outgoing(null, concrete);
            assertEquals(Map.of("recover", Map.of("/chat/a", position("E", 4))), concrete.getExt());

            Message.Mutable wild = Messages.of("/meta/subscribe");
            wild.put(Message.SUBSCRIPTION, "/chat/*");
            recovery.outgoing(null, wild);
            assertEquals(Map.of("recover", Map.of("/chat/a", position("E", 4), "/chat/b", position("E", 7))),
                    wild.getExt());

            Message.Mutable unknown = Messages.of("/meta/subscribe");
            unknown.put(Message.SUBSCRIPTION, "/other");
            recovery.outgoing(null, unknown);
            assertNull(unknown.getExt(), "nothing to recover: no ext");
        }

        @Test
        void aWildcardSendsAtMost64PositionsTheMostRecentlySeen() {
            for (int i = 0; i < 70; i++) {
                recovery.incoming(null, delivered("/chat/room" + i, "E", i + 1));
            }
            Map<String, Object> recover = recovery.recoverFor("/chat/**");
            assertEquals(RecoveryExtension.MAX_RECOVER_CHANNELS, recover.size());
            assertEquals(position("E", 70), recover.get("/chat/room69"));
            assertNull(recover.get("/chat/room5"));
        }

        @Test
        void aReplyGivesAPositionOnlyWhereTheClientHasNoneInItsEpoch() {
            recovery.incoming(null, delivered("/a", "E", 5));
            recovery.incoming(null, delivered("/b", "E", 5));
            recovery.incoming(null, delivered("/c", "E", 9));
            recovery.incoming(null, delivered("/e", "E", 4));
            Map<String, Object> recover = new LinkedHashMap<>();
            recover.put("/a", position("E", 8, true)); // 6 to 8 follow: 5 stays, or they would be dropped
            recover.put("/b", position("G", 1, false)); // a new stream: live from 1
            recover.put("/c", position("E", 7)); // already past it
            recover.put("/d", position("E", 3)); // a first position
            recover.put("/e", position("E", 6, false)); // 5 and 6 may be on their way (another subscription)
            recover.put("/f", Map.of("recovered", false)); // the server could not read its history

            recovery.incoming(null, subscribeReply("/*", recover));

            assertEquals(new Position("E", 5), recovery.position("/a"));
            assertEquals(new Position("G", 1), recovery.position("/b"));
            assertEquals(new Position("E", 9), recovery.position("/c"));
            assertEquals(new Position("E", 3), recovery.position("/d"));
            assertEquals(new Position("E", 4), recovery.position("/e"));
            assertNull(recovery.position("/f"));
            assertEquals(List.of(new Recovery("/a", "/*", true, "E", 8), new Recovery("/b", "/*", false, "G", 1),
                    new Recovery("/e", "/*", false, "E", 6), new Recovery("/f", "/*", false, null, -1)), told);
            assertTrue(recovery.incoming(null, delivered("/a", "E", 6)), "recovered messages are delivered");
        }

        @Test
        void anUnsubscribeForgetsThePositionsNoSubscriptionLeftCovers() {
            recovery.incoming(null, subscribeReply("/chat/**", null));
            recovery.incoming(null, subscribeReply("/news", null));
            recovery.incoming(null, delivered("/chat/a/b", "C", 5));
            recovery.incoming(null, delivered("/news", "N", 2));
            Message.Mutable unsubscribed = Messages.of("/meta/unsubscribe");
            unsubscribed.setSuccessful(true);
            unsubscribed.put(Message.SUBSCRIPTION, "/chat/**");

            recovery.incoming(null, unsubscribed);

            assertNull(recovery.position("/chat/a/b"));
            assertEquals(new Position("N", 2), recovery.position("/news"));
        }

        @Test
        void pastItsBoundTheChannelSeenLeastRecentlyIsForgotten() {
            for (int i = 0; i <= RecoveryExtension.MAX_CHANNELS; i++) {
                recovery.incoming(null, delivered("/c" + i, "E", 1));
            }
            assertNull(recovery.position("/c0"));
            assertEquals(new Position("E", 1), recovery.position("/c" + RecoveryExtension.MAX_CHANNELS));
        }

        @Test
        void whatIsNotAPositionIsIgnored() {
            Message.Mutable odd = Messages.of("/a");
            odd.setData(1);
            odd.getExt(true).put("history", Map.of("epoch", "E", "offset", -3));
            assertTrue(recovery.incoming(null, odd));
            assertNull(recovery.position("/a"));
            recovery.incoming(null, subscribeReply("/a", Map.of("/a", Map.of("epoch", 7, "offset", 1))));
            assertNull(recovery.position("/a"));
            assertTrue(told.isEmpty());
            recovery.incoming(null, subscribeReply("/a", Map.of("/a", "recovered")));
            assertTrue(told.isEmpty());
        }
    }

    /** In a client, against a scripted server. */
    @Nested
    class InAClient {
        private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        private final ScriptedTransport webSocket = new ScriptedTransport("websocket", true);
        private final List<Recovery> told = new CopyOnWriteArrayList<>();
        private final List<Object> received = new CopyOnWriteArrayList<>();

        @AfterEach
        void stop() {
            scheduler.shutdownNow();
        }

        private BayeuxClient client(BayeuxClientBuilder builder) {
            return builder.scheduler(scheduler).backoff(10, 50).maxNetworkDelay(60_000).transport(webSocket::attach)
                    .build();
        }

        private void handshake(String clientId) throws InterruptedException {
            webSocket.reply(webSocket.next("/meta/handshake"), Map.of("successful", true, "clientId", clientId,
                    "supportedConnectionTypes", List.of("websocket"),
                    "advice", Map.of("reconnect", "retry", "interval", 0, "timeout", 20000)));
            webSocket.reply(webSocket.next("/meta/connect"), Map.of("successful", true));
        }

        private void forget(Message.Mutable held) {
            webSocket.reply(held, Map.of("successful", false, "error", "402::session_unknown",
                    "advice", Map.of("reconnect", "handshake", "interval", 0)));
        }

        @Test
        void aSubscriptionMadeAgainAfterANewHandshakeRecoversEachMessageOnce() throws Exception {
            BayeuxClient client = client(BayeuxClient.builder("http://localhost/cometd")
                    .recoveryListener((c, recovery) -> told.add(recovery)));
            client.handshake();
            handshake("c1");
            Message.Mutable held = webSocket.next("/meta/connect");
            client.subscribe("/chat/a", message -> received.add(message.getDataAsMap().get("n")));
            Message.Mutable subscribe = webSocket.next("/meta/subscribe");
            assertNull(subscribe.getExt(), "nothing to recover from yet");
            webSocket.reply(subscribe, Map.of("successful", true, "subscription", "/chat/a",
                    "ext", Map.of("recover", Map.of("/chat/a", position("E1", 3)))));
            webSocket.reply(List.of(held), Map.of("channel", "/chat/a", "data", Map.of("n", 4),
                    "ext", Map.of("history", position("E1", 4))));
            TestClients.awaitTrue("offset 4", () -> received.size() == 1);

            forget(held);
            handshake("c2");
            Message.Mutable again = webSocket.next("/meta/subscribe");
            assertEquals("c2", again.getClientId());
            assertEquals(Map.of("recover", Map.of("/chat/a", position("E1", 4))), again.getExt());
            // the reply (the channel is at 6 now) before what it recovered, then the duplicates and the new
            webSocket.reply(List.of(again, again, again, again, again),
                    Map.of("successful", true, "subscription", "/chat/a",
                            "ext", Map.of("recover", Map.of("/chat/a", position("E1", 6, true)))),
                    deliveredFields("/chat/a", "E1", 4), deliveredFields("/chat/a", "E1", 5),
                    deliveredFields("/chat/a", "E1", 6), deliveredFields("/chat/a", "E1", 7));
            webSocket.reply(List.of(again), deliveredFields("/chat/a", "E1", 6));

            TestClients.awaitTrue("offsets 5 to 7", () -> received.size() >= 4);
            assertEquals(List.of(4L, 5L, 6L, 7L), received.stream().map(n -> ((Number) n).longValue()).toList());
            assertEquals(List.of(new Recovery("/chat/a", "/chat/a", true, "E1", 6)), told);
        }

        @Test
        void aDrainedNodeIsLeftForAnotherWhereTheSubscriptionRecovers() throws Exception {
            BayeuxClient client = client(BayeuxClient.builder("http://localhost/cometd"));
            client.handshake();
            handshake("c1");
            Message.Mutable held = webSocket.next("/meta/connect");
            client.subscribe("/chat/a", message -> received.add(message.getData()));
            webSocket.reply(webSocket.next("/meta/subscribe"), Map.of("successful", true, "subscription", "/chat/a",
                    "ext", Map.of("recover", Map.of("/chat/a", position("E1", 2)))));

            Map<String, Object> draining = Map.of("successful", false, "error", "503::server_draining",
                    "advice", Map.of("reconnect", "handshake", "interval", 0));
            webSocket.reply(held, draining);
            webSocket.reply(webSocket.next("/meta/handshake"), draining); // the same node, still draining
            handshake("c2"); // another node

            Message.Mutable again = webSocket.next("/meta/subscribe");
            assertEquals("c2", again.getClientId());
            assertEquals(Map.of("recover", Map.of("/chat/a", position("E1", 2))), again.getExt());
        }

        @Test
        void withRecoveryOffNothingIsAskedForOrDropped() throws Exception {
            BayeuxClient client = client(BayeuxClient.builder("http://localhost/cometd").recovery(false));
            client.handshake();
            handshake("c1");
            Message.Mutable held = webSocket.next("/meta/connect");
            client.subscribe("/chat/a", message -> received.add(message.getData()));
            webSocket.reply(webSocket.next("/meta/subscribe"), Map.of("successful", true, "subscription", "/chat/a"));
            webSocket.reply(List.of(held, held), deliveredFields("/chat/a", "E1", 4),
                    deliveredFields("/chat/a", "E1", 4));
            TestClients.awaitTrue("both copies", () -> received.size() == 2);

            forget(held);
            handshake("c2");
            assertNull(webSocket.next("/meta/subscribe").getExt());
        }

        private static Map<String, Object> deliveredFields(String channel, String epoch, long offset) {
            return Map.of("channel", channel, "data", Map.of("n", offset), "ext", Map.of("history",
                    position(epoch, offset)));
        }
    }
}
