package io.weft.server.serverapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.MessageDecodeException;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.HistoryRule;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Broker;
import io.weft.server.spi.History;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine with a broker that keeps history for the cluster: a publish on a history channel goes to the broker
 * alone and reaches this node's subscribers only when the broker hands it back stamped; a failed one is refused to
 * its publisher; a recovery read that answers late holds the live publications meanwhile and gives each once, in
 * order, even one the broker hands over late.
 */
class HistoryBrokerTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.builder().set("history", "/chat/**").build(),
            scheduler);
    private final Store store = new Store();

    @AfterEach
    void close() {
        server.close();
    }

    /** A broker keeping history as Redis would for the engine: each publish stamped, kept, handed back later. */
    private static final class Store implements Broker {
        final List<MessageImpl> kept = new ArrayList<>();
        final List<Runnable> pendingDeliveries = new ArrayList<>();
        final List<CompletableFuture<Void>> pendingReads = new ArrayList<>();
        final List<Message> plainPublishes = new ArrayList<>();
        volatile RuntimeException failure;
        Hub hub;

        @Override
        public void start(Hub hub) {
            this.hub = hub;
        }

        @Override
        public void publish(Message message) {
            plainPublishes.add(message);
        }

        @Override
        public void subscribe(ChannelId channel) {
        }

        @Override
        public void unsubscribe(ChannelId channel) {
        }

        @Override
        public void stop() {
        }

        @Override
        public boolean keepsHistory() {
            return true;
        }

        @Override
        public synchronized void publish(Message message, HistoryRule rule, Consumer<Throwable> done) {
            if (failure != null) {
                done.accept(failure);
                return;
            }
            MessageImpl stamped = stamp(message, kept.size() + 1);
            kept.add(stamped);
            pendingDeliveries.add(() -> hub.deliver(stamped));
            done.accept(null);
        }

        static MessageImpl stamp(Message message, long offset) {
            MessageImpl stamped = new MessageImpl();
            stamped.setChannel(message.getChannel());
            stamped.setData(message.getData());
            stamped.getExt(true).put(History.EXT, new History.Position("e1", offset).toMap());
            return stamped;
        }

        /** Hands the kept publications back to the node, as the broker's subscription would. */
        synchronized void deliverPending() {
            pendingDeliveries.forEach(Runnable::run);
            pendingDeliveries.clear();
        }

        @Override
        public synchronized void history(ChannelId channel, HistoryRule rule, History.Position after, int max,
                BiConsumer<History.Page, Throwable> done) {
            History.Position top = new History.Position("e1", kept.size());
            List<Message> missed = after == null ? List.of() : List.copyOf(kept.subList((int) after.offset(),
                    kept.size()));
            CompletableFuture<Void> answer = new CompletableFuture<>();
            answer.thenRun(() -> done.accept(new History.Page(top, missed, true), null));
            pendingReads.add(answer);
        }

        synchronized void answerReads() {
            List<CompletableFuture<Void>> reads = new ArrayList<>(pendingReads);
            pendingReads.clear();
            reads.forEach(read -> read.complete(null));
        }
    }

    private static List<Object> data(List<Map<String, Object>> answer) {
        List<Object> out = new ArrayList<>();
        for (Map<String, Object> message : answer) {
            if ("/chat/a".equals(message.get("channel")) && message.containsKey("data")) {
                Object data = message.get("data");
                out.add(data instanceof Number number ? (Object) number.longValue() : data);
            }
        }
        return out;
    }

    @Test
    void aHistoryPublishReachesSubscribersOnlyAsTheBrokerHandsItBackAndAFailureIsRefused() {
        Broker.install(server, store);
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        ScriptedClient reader = ScriptedClient.connected(server, "r");
        CompletableFuture<Map<String, Object>> subscribed = CompletableFuture.supplyAsync(
                () -> reader.subscribe("/chat/a"));
        awaitPendingRead();
        store.answerReads();
        assertEquals(true, subscribed.join().get("successful"));
        assertEquals(true, publisher.publish("/chat/a", 1).get("successful"));
        assertTrue(store.plainPublishes.isEmpty(), "not published a second time the ordinary way");
        assertEquals(List.of(), data(reader.connectNow()), "not delivered before the broker hands it back");
        store.deliverPending();
        assertEquals(List.of(1L), data(reader.connectNow()));
        store.failure = new IllegalStateException("redis down");
        assertEquals("503::history_unavailable", publisher.publish("/chat/a", 2).get("error"));
        assertEquals(1L, server.getStats().history().failures());
        assertEquals(true, publisher.publish("/elsewhere", 3).get("successful"), "other channels go on");
    }

    @Test
    void aLateReadHoldsLivePublicationsAndGivesEachOnceInOrder() {
        Broker.install(server, store);
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        for (int i = 1; i <= 3; i++) {
            publisher.publish("/chat/a", i);
        }
        store.deliverPending();
        ScriptedClient reader = ScriptedClient.connected(server, "r");
        Map<String, Object> message = reader.message("/meta/subscribe", "subscription", "/chat/a", "ext",
                Map.of("recover", Map.of("/chat/a", Map.of("epoch", "e1", "offset", 1))));
        CompletableFuture<Map<String, Object>> subscribed = CompletableFuture.supplyAsync(() -> reader.call(message));
        awaitPendingRead();
        // While the read is out: the broker hands over one publication late (3, which the read finds too) and a new one.
        publisher.publish("/chat/a", 4);
        store.hub.deliver(Store.stamp(store.kept.get(2), 3));
        store.deliverPending();
        store.answerReads();
        Map<String, Object> reply = subscribed.join();
        assertEquals(true, reply.get("successful"), reply.toString());
        Map<?, ?> result = (Map<?, ?>) ((Map<?, ?>) ((Map<?, ?>) reply.get("ext")).get("recover")).get("/chat/a");
        assertEquals("e1", result.get("epoch"));
        assertEquals(3L, ((Number) result.get("offset")).longValue());
        assertEquals(true, result.get("recovered"));
        assertEquals(List.of(2L, 3L, 4L), data(reader.connectNow()));
        store.hub.deliver(Store.stamp(store.kept.get(1), 2));
        publisher.publish("/chat/a", 5);
        store.deliverPending();
        assertEquals(List.of(5L), data(reader.connectNow()), "a late copy of what the client has is dropped");
    }

    /** A broker that keeps no history, joining two nodes: each hands the other what it publishes. */
    private static final class Pair implements Broker {
        volatile Hub hub;
        volatile Pair other;

        @Override
        public void start(Hub hub) {
            this.hub = hub;
        }

        @Override
        public void publish(Message message) {
            byte[] json = hub.codec().encode(List.of(message));
            try {
                other.hub.deliver(other.hub.codec().decode(json, 0, json.length).get(0));
            } catch (MessageDecodeException x) {
                throw new AssertionError(x);
            }
        }

        @Override
        public void subscribe(ChannelId channel) {
        }

        @Override
        public void unsubscribe(ChannelId channel) {
        }

        @Override
        public void stop() {
        }
    }

    @Test
    void withABrokerThatKeepsNoHistoryEachNodeKeepsWhatItReceivesInItsOwnEpoch() {
        BayeuxServer b = BayeuxServer.create(ServerOptions.builder().set("history", "/chat/**").build(), scheduler);
        try {
            Pair toB = new Pair();
            Pair toA = new Pair();
            toB.other = toA;
            toA.other = toB;
            Broker.install(server, toB);
            Broker.install(b, toA);
            ScriptedClient publisher = ScriptedClient.connected(server, "p");
            ScriptedClient onB = ScriptedClient.connected(b, "r");
            Map<String, Object> reply = onB.subscribe("/chat/a");
            String epoch = (String) ((Map<?, ?>) ((Map<?, ?>) ((Map<?, ?>) reply.get("ext")).get("recover")).get("/chat/a"))
                    .get("epoch");
            for (int i = 1; i <= 3; i++) {
                assertEquals(true, publisher.publish("/chat/a", i).get("successful"));
            }
            List<Map<String, Object>> answer = onB.connectNow();
            assertEquals(List.of(1L, 2L, 3L), data(answer));
            for (Map<String, Object> message : answer) {
                if ("/chat/a".equals(message.get("channel")) && message.containsKey("data")) {
                    assertEquals(epoch, ((Map<?, ?>) ((Map<?, ?>) message.get("ext")).get("history")).get("epoch"),
                            "node b's own epoch");
                }
            }
            onB.disconnect();
            publisher.publish("/chat/a", 4);
            ScriptedClient again = ScriptedClient.connected(b, "again");
            Map<String, Object> message = again.message("/meta/subscribe", "subscription", "/chat/a", "ext",
                    Map.of("recover", Map.of("/chat/a", Map.of("epoch", epoch, "offset", 3))));
            Map<?, ?> result = (Map<?, ?>) ((Map<?, ?>) ((Map<?, ?>) again.call(message).get("ext")).get("recover"))
                    .get("/chat/a");
            assertEquals(true, result.get("recovered"));
            assertEquals(List.of(4L), data(again.connectNow()));
        } finally {
            b.close();
        }
    }

    private void awaitPendingRead() {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            synchronized (store) {
                if (!store.pendingReads.isEmpty()) {
                    return;
                }
            }
            assertTrue(System.nanoTime() < deadline, "the subscription reads the history");
            Thread.onSpinWait();
        }
    }
}
