package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.server.api.HistoryRule;
import io.weft.server.spi.History;
import io.weft.server.testing.Await;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntPredicate;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Channel history on a three-shard Redis Cluster, sharded pub/sub: each channel's keys are on the shard of its name, one
 * script there numbers, keeps and publishes each publish, and every node gets them in offset order; with that shard
 * away, publishes and reads fail (and are counted) rather than leave a silent gap, and when it is back its channels
 * start a new epoch.
 */
@Timeout(90)
class ShardedHistoryTest {
    static final HistoryRule RULE = HistoryRule.parse("/**:size=1000,ttl=60s");

    @RegisterExtension
    final RedisClusterServer redis = new RedisClusterServer();
    private final List<HistoryNode> nodes = new ArrayList<>();

    @AfterEach
    void close() {
        nodes.forEach(HistoryNode::close);
    }

    private HistoryNode node() {
        HistoryNode node = HistoryNode.on(redis.seeds(), true);
        nodes.add(node);
        return node;
    }

    @Test
    void theKeysOfAChannelAreOnTheShardOfItsName() throws IOException {
        HistoryKeys keys = new HistoryKeys("weft:");
        for (String channel : List.of("/hs/room", "/a{b}c", "/a}b", "/a{}b", "/{x", "/é/ü")) {
            String[] names = keys.of(ChannelId.of(channel));
            int slot = HistoryKeys.slot("weft:" + channel);
            assertEquals(List.of(slot, slot), List.of(HistoryKeys.slot(names[0]), HistoryKeys.slot(names[1])), channel);
            assertEquals(redis.shardOf("weft:" + channel), redis.shardOf(names[0]), "as Redis says: " + channel);
        }
        assertEquals("{weft:/hs/room}:history", keys.of(ChannelId.of("/hs/room"))[0]);
    }

    @Test
    void publishesOfTwoNodesOnChannelsOfEveryShardReachEveryNodeOnceInOffsetOrder() throws Exception {
        HistoryNode a = node();
        HistoryNode b = node();
        List<String> rooms = redis.onEveryShard("weft:", "/hs/room");
        for (String room : rooms) {
            a.subscribe(room);
        }
        b.subscribe("/hs/*"); // b listens through the wildcard's name only
        Await.until(HistoryNode.WITHIN, () -> numsub(rooms.get(0), rooms.get(1), rooms.get(2), "/hs/*"),
                List.of(1, 1, 1, 1)::equals, "the shards have the subscriptions");

        int each = 30;
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < each; i++) {
            for (String room : rooms) {
                done.add(a.publish(room, "a" + i, RULE));
            }
        }
        for (CompletableFuture<Void> published : done) {
            HistoryNode.await(published);
        }
        for (int i = 0; i < each; i++) { // b publishes after a: the wildcard's name hears one publisher at a time
            for (String room : rooms) {
                HistoryNode.await(b.publish(room, "b" + i, RULE));
            }
        }

        for (HistoryNode node : List.of(a, b)) {
            for (String room : rooms) {
                Await.until(HistoryNode.WITHIN, () -> node.delivered(room).size() >= 2 * each, "all of " + room);
                List<History.Position> positions = node.positions(room);
                String epoch = positions.get(0).epoch();
                assertEquals(LongStream.rangeClosed(1, 2 * each).mapToObj(n -> new History.Position(epoch, n))
                        .toList(), positions, "offsets in order, each once, on " + room);
            }
        }
        for (String room : rooms) {
            History.Position top = b.page(room, RULE, null, 10).top();
            assertEquals(2 * each, top.offset());
            History.Page missed = b.page(room, RULE, new History.Position(top.epoch(), 2 * each - 3), 10);
            assertEquals(List.of("b" + (each - 3), "b" + (each - 2), "b" + (each - 1)), missed.messages().stream()
                    .map(Message::getData).toList(), "any node reads any channel's history");
        }
        assertEquals(0, a.broker.stats().publishFailures() + b.broker.stats().publishFailures());
    }

    @Test
    void twoNodesPublishingAtOnceOnOneChannelGiveEveryNodeOneOffsetOrder() throws Exception {
        HistoryNode a = node();
        HistoryNode b = node();
        HistoryNode c = node();
        String room = "/hs/both";
        a.subscribe(room);
        b.subscribe(room);
        c.subscribe("/hs/*"); // c hears it through the wildcard's name, from each publisher after its script ran
        Await.until(HistoryNode.WITHIN, () -> numsub(room, "/hs/*"), List.of(2, 1)::equals, "the subscriptions");

        int each = 100;
        List<CompletableFuture<Void>> done = new ArrayList<>();
        Thread fromB = new Thread(() -> {
            for (int i = 0; i < each; i++) {
                CompletableFuture<Void> published = b.publish(room, "b" + i, RULE);
                synchronized (done) {
                    done.add(published);
                }
            }
        });
        fromB.start();
        for (int i = 0; i < each; i++) {
            CompletableFuture<Void> published = a.publish(room, "a" + i, RULE);
            synchronized (done) {
                done.add(published);
            }
        }
        fromB.join();
        for (CompletableFuture<Void> published : done) {
            HistoryNode.await(published);
        }
        for (HistoryNode node : List.of(a, b, c)) {
            Await.until(HistoryNode.WITHIN, () -> node.delivered(room).size(), n -> n >= 2 * each,
                    "all delivered to node " + List.of(a, b, c).indexOf(node) + " (" + node.broker.stats() + ")");
            String epoch = node.positions(room).get(0).epoch();
            assertEquals(LongStream.rangeClosed(1, 2 * each).mapToObj(n -> new History.Position(epoch, n)).toList(),
                    node.positions(room), "offsets 1..200 in order, each once, own publishes included");
            assertEquals(a.delivered(room).stream().map(Message::getData).toList(),
                    node.delivered(room).stream().map(Message::getData).toList(), "one order on every node");
        }
        assertEquals(0, c.broker.stats().historyGaps(), "c waited for what came late, and all came");
    }

    @Test
    void withAChannelsShardAwayItsPublishesAndReadsFailAndItComesBackInANewEpoch() throws Exception {
        // One-segment channels go to their own name and to weft:/*: keep weft:/* on a shard that stays up.
        int dead = (redis.shardOf("weft:/*") + 1) % 3;
        String k = channel(shard -> shard == dead);
        String l = channel(shard -> shard != dead);
        HistoryNode a = node();
        HistoryNode b = node();
        b.subscribe(k);
        b.subscribe(l);
        Await.until(HistoryNode.WITHIN, () -> numsub(k, l), List.of(1, 1)::equals, "b subscribes");
        a.published(k, "k before", RULE);
        History.Position before = a.page(k, RULE, null, 10).top();

        redis.kill(dead);
        Await.until(HistoryNode.WITHIN, () -> !a.broker.stats().connected(), "a saw the shard go");
        assertThrows(Exception.class, () -> a.published(k, "k during", RULE), "the publish fails, done says so");
        assertThrows(Exception.class, () -> a.page(k, RULE, before, 10), "so does a read");
        assertEquals(1, a.broker.stats().publishFailures());
        assertEquals(1, a.broker.stats().historyReadFailures());
        a.published(l, "l during", RULE);
        Await.until(HistoryNode.WITHIN, () -> b.delivered(l).size() == 1, "the other shards' channels go on");

        redis.restart(dead);
        Await.until(HistoryNode.WITHIN, () -> a.broker.stats().connected() && b.broker.stats().connected(),
                "both brokers reconnected");
        Await.until(HistoryNode.WITHIN, () -> numsub(k), List.of(1)::equals, "b subscribes on the shard again");
        History.Page page = a.page(k, RULE, before, 10);
        assertFalse(page.complete(), "the restarted shard lost the history: not recovered, never a silent gap");
        assertNotEquals(before.epoch(), page.top().epoch());
        a.published(k, "k after", RULE);
        Await.until(HistoryNode.WITHIN, () -> b.delivered(k).size() == 2, "b gets what comes after");
        assertEquals(List.of("k before", "k after"), b.delivered(k).stream().map(Message::getData).toList());
        assertEquals(new History.Position(page.top().epoch(), 1), b.positions(k).get(1));
        assertEquals(2, a.broker.stats().historyReads(), a.broker.stats().toString());
    }

    /** The first channel {@code /hskN} whose name is on a shard {@code wanted}. */
    private String channel(IntPredicate wanted) throws IOException {
        for (int i = 0;; i++) {
            if (wanted.test(redis.shardOf("weft:/hsk" + i))) {
                return "/hsk" + i;
            }
        }
    }

    /** SHARDNUMSUB of each channel's name, on the shard that owns it; -1 for a shard that does not answer. */
    private List<Integer> numsub(String... channels) {
        List<Integer> counts = new ArrayList<>();
        for (String channel : channels) {
            try {
                counts.add(redis.shardNumsub("weft:" + channel));
            } catch (IOException x) {
                counts.add(-1);
            }
        }
        return counts;
    }
}
