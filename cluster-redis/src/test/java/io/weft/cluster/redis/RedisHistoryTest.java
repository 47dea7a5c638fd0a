package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import io.weft.server.api.HistoryRule;
import io.weft.server.spi.History;
import io.weft.server.testing.Await;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Channel history in a real {@code redis-server}, plain mode, two or three brokers on hubs of the test's own: each
 * publish is numbered, kept and delivered to every node (its own included) in offset order, and a read after a position
 * gives exactly what came after it, or says it cannot.
 */
@Timeout(60)
class RedisHistoryTest {
    static final HistoryRule RULE = HistoryRule.parse("/h/**:size=1000,ttl=60s");

    @RegisterExtension
    final RedisServer redis = new RedisServer();
    private final List<HistoryNode> nodes = new ArrayList<>();

    @AfterEach
    void close() {
        nodes.forEach(HistoryNode::close);
    }

    private HistoryNode node() {
        HistoryNode node = HistoryNode.on(redis.uri(), false);
        nodes.add(node);
        return node;
    }

    /** Waits until {@code count} nodes subscribe to {@code channel} in Redis. */
    private void awaitSubscribed(String channel, int count) throws InterruptedException {
        Await.until(HistoryNode.WITHIN, () -> {
            try {
                return Integer.parseInt(redis.command("PUBSUB", "NUMSUB", "weft:" + channel).get(1));
            } catch (Exception x) {
                return -1;
            }
        }, n -> n == count, count + " nodes subscribe to " + channel);
    }

    @Test
    void publishesOfTwoNodesGetContiguousOffsetsAndReachBothNodesOnceInOffsetOrder() throws Exception {
        HistoryNode a = node();
        HistoryNode b = node();
        a.subscribe("/h/room");
        b.subscribe("/h/room");
        awaitSubscribed("/h/room", 2);

        int each = 50;
        List<CompletableFuture<Void>> done = new ArrayList<>();
        Thread fromB = new Thread(() -> {
            for (int i = 0; i < each; i++) {
                synchronized (done) {
                    done.add(b.publish("/h/room", "b" + i, RULE));
                }
            }
        });
        fromB.start();
        for (int i = 0; i < each; i++) {
            CompletableFuture<Void> published = a.publish("/h/room", "a" + i, RULE);
            synchronized (done) {
                done.add(published);
            }
        }
        fromB.join();
        for (CompletableFuture<Void> published : done) {
            HistoryNode.await(published);
        }

        for (HistoryNode node : List.of(a, b)) {
            Await.until(HistoryNode.WITHIN, () -> node.delivered("/h/room").size() >= 2 * each, "all delivered");
            List<History.Position> positions = node.positions("/h/room");
            String epoch = positions.get(0).epoch();
            assertEquals(LongStream.rangeClosed(1, 2 * each).mapToObj(n -> new History.Position(epoch, n)).toList(),
                    positions, "offsets 1..100 in order, each once, the node's own publishes included");
            List<Object> data = node.delivered("/h/room").stream().map(Message::getData).toList();
            assertEquals(seq("a", each), data.stream().filter(d -> d.toString().startsWith("a")).toList(),
                    "a's publishes in a's order");
            assertEquals(seq("b", each), data.stream().filter(d -> d.toString().startsWith("b")).toList());
        }
        assertEquals(a.positions("/h/room"), b.positions("/h/room"), "one order on every node");
        RedisBroker.Stats stats = a.broker.stats();
        assertEquals(each, stats.published(), stats.toString());
        assertEquals(2 * each, stats.received(), stats.toString());
        assertEquals(0, stats.droppedOwn() + stats.publishFailures(), stats.toString());
    }

    @Test
    void aReadAfterAPositionGivesExactlyWhatCameAfterIt() throws Exception {
        HistoryNode a = node();
        HistoryNode b = node();
        for (int i = 1; i <= 10; i++) {
            a.published("/h/read", "m" + i, RULE);
        }
        History.Page now = b.page("/h/read", RULE, null, 100);
        String epoch = now.top().epoch();
        assertEquals(new History.Page(new History.Position(epoch, 10), List.of(), true), now,
                "no position asked: the position now");

        History.Page missed = b.page("/h/read", RULE, new History.Position(epoch, 4), 100);
        assertTrue(missed.complete());
        assertEquals(new History.Position(epoch, 10), missed.top());
        assertEquals(List.of("m5", "m6", "m7", "m8", "m9", "m10"), missed.messages().stream().map(Message::getData)
                .toList());
        assertEquals(LongStream.rangeClosed(5, 10).mapToObj(n -> new History.Position(epoch, n)).toList(),
                missed.messages().stream().map(History.Position::of).toList(), "each carries its position");
        assertEquals("/h/read", missed.messages().get(0).getChannel());

        assertEquals(new History.Page(now.top(), List.of(), true),
                b.page("/h/read", RULE, new History.Position(epoch, 10), 100), "nothing missed");
        assertEquals(new History.Page(now.top(), List.of(), false),
                b.page("/h/read", RULE, new History.Position(epoch, 11), 100), "a position ahead of the channel");
        assertEquals(new History.Page(now.top(), List.of(), false),
                b.page("/h/read", RULE, new History.Position("another", 4), 100), "another epoch");
        assertEquals(new History.Page(now.top(), List.of(), false),
                b.page("/h/read", RULE, new History.Position(epoch, 4), 5), "more missed than the read's maximum");
        assertEquals(6, b.page("/h/read", RULE, new History.Position(epoch, 4), 6).messages().size());
        assertEquals(7, b.broker.stats().historyReads(), "every read counted");

        History.Page fresh = a.page("/h/never", RULE, null, 100);
        assertEquals(0, fresh.top().offset(), "a channel never published to gets an epoch at offset 0");
        a.published("/h/never", "first", RULE);
        assertEquals(List.of("first"), a.page("/h/never", RULE, fresh.top(), 100).messages().stream()
                .map(Message::getData).toList(), "from that position, the first publish is recovered");
    }

    @Test
    void whatTheSizeTrimmedIsNotRecoveredAndTheRestIs() throws Exception {
        HistoryRule five = HistoryRule.parse("/h/**:size=5,ttl=60s");
        HistoryNode a = node();
        for (int i = 1; i <= 8; i++) {
            a.published("/h/small", "m" + i, five);
        }
        String epoch = a.page("/h/small", five, null, 100).top().epoch();
        assertEquals(List.of("5"), redis.command("XLEN", "{weft:/h/small}:stream"));
        assertFalse(a.page("/h/small", five, new History.Position(epoch, 2), 100).complete(), "3 was trimmed");
        assertFalse(a.page("/h/small", five, new History.Position(epoch, 0), 100).complete());
        assertEquals(List.of("m4", "m5", "m6", "m7", "m8"), a.page("/h/small", five, new History.Position(epoch, 3),
                100).messages().stream().map(Message::getData).toList());
    }

    @Test
    void theBytesKeptPerChannelStayWithinTheRule() throws Exception {
        HistoryRule kilobyte = HistoryRule.parse("/h/**:size=1000,ttl=60s,bytes=1k");
        HistoryNode a = node();
        String big = "x".repeat(300);
        for (int i = 1; i <= 6; i++) {
            a.published("/h/big", big + i, kilobyte);
        }
        int kept = Integer.parseInt(redis.command("XLEN", "{weft:/h/big}:stream").get(0));
        long bytes = Long.parseLong(redis.command("HGET", "{weft:/h/big}:history", "bytes").get(0));
        assertTrue(kept >= 2 && kept <= 3, "about 330 bytes each: " + kept);
        assertTrue(bytes <= 1024 && bytes > 300 * kept, "bytes " + bytes);
        String epoch = a.page("/h/big", kilobyte, null, 100).top().epoch();
        assertEquals(kept, a.page("/h/big", kilobyte, new History.Position(epoch, 6 - kept), 100).messages().size());
        assertFalse(a.page("/h/big", kilobyte, new History.Position(epoch, 5 - kept), 100).complete());
    }

    @Test
    void aFlushedRedisIsANewEpochAndNothingFromBeforeIsRecovered() throws Exception {
        HistoryNode a = node();
        a.subscribe("/h/flush");
        awaitSubscribed("/h/flush", 1);
        for (int i = 1; i <= 3; i++) {
            a.published("/h/flush", "m" + i, RULE);
        }
        History.Position before = a.page("/h/flush", RULE, null, 100).top();
        redis.command("FLUSHALL");

        History.Page after = a.page("/h/flush", RULE, before, 100);
        assertFalse(after.complete(), "history was lost");
        assertNotEquals(before.epoch(), after.top().epoch());
        assertEquals(0, after.top().offset());
        a.published("/h/flush", "again", RULE);
        Await.until(HistoryNode.WITHIN, () -> a.delivered("/h/flush").size() == 4, "the fourth delivered");
        assertEquals(new History.Position(after.top().epoch(), 1), a.positions("/h/flush").get(3),
                "the new epoch's first offset");
    }

    @Test
    void nothingOlderThanTheTtlIsReturnedAndAnIdleChannelsHistoryGoes() throws Exception {
        HistoryRule second = HistoryRule.parse("/h/**:size=1000,ttl=1s");
        HistoryNode a = node();
        long start = System.nanoTime();
        a.published("/h/ttl", "old", second);
        String epoch = a.page("/h/ttl", second, null, 100).top().epoch();
        Await.until(HistoryNode.WITHIN, () -> System.nanoTime() - start > 500_000_000L, "half the ttl went by");
        a.published("/h/ttl", "newer", second); // keeps the keys another second

        Await.until(HistoryNode.WITHIN, () -> !ttlPage(a, second, new History.Position(epoch, 0)).complete(),
                "the first publish is past the ttl");
        History.Page newer = a.page("/h/ttl", second, new History.Position(epoch, 1), 100);
        assertEquals(new History.Position(epoch, 2), newer.top(), "the channel's epoch lives on");
        assertEquals(List.of("newer"), newer.messages().stream().map(Message::getData).toList());

        Await.until(HistoryNode.WITHIN, () -> !epoch.equals(ttlPage(a, second, null).top().epoch()),
                "a second after the last publish the channel's history and epoch are gone");
        assertFalse(a.page("/h/ttl", second, new History.Position(epoch, 2), 100).complete());
    }

    @Test
    void withRedisAwayPublishesAndReadsFailAndAreCounted() throws Exception {
        HistoryNode a = node();
        a.published("/h/away", "before", RULE);
        History.Position before = a.page("/h/away", RULE, null, 100).top();
        redis.kill();
        Await.until(HistoryNode.WITHIN, () -> !a.broker.stats().connected(), "the broker saw Redis go");

        assertThrows(Exception.class, () -> a.published("/h/away", "during", RULE));
        assertThrows(Exception.class, () -> a.page("/h/away", RULE, before, 100));
        assertEquals(1, a.broker.stats().publishFailures());
        assertEquals(1, a.broker.stats().historyReadFailures());

        redis.restart();
        Await.until(HistoryNode.WITHIN, () -> a.broker.stats().connected(), "the broker is back");
        a.published("/h/away", "after", RULE); // Redis forgot the scripts too: EVALSHA, then EVAL
        History.Page page = a.page("/h/away", RULE, before, 100);
        assertFalse(page.complete(), "a restarted Redis without persistence lost the history: a new epoch");
        assertEquals(1, page.top().offset());
    }

    @Test
    void concurrentPublishersAndReadersNeverSeeAGapOrADuplicate() throws Exception {
        List<HistoryNode> cluster = List.of(node(), node(), node());
        Random seeds = new Random();
        int recovered = 0;
        for (int round = 0; round < 4; round++) {
            long seed = seeds.nextLong();
            String channel = "/h/p" + round;
            Random random = new Random(seed);
            HistoryRule rule = HistoryRule.parse("/h/**:size=" + (5 + random.nextInt(40)) + ",ttl=60s");
            for (HistoryNode node : cluster) {
                node.subscribe(channel);
            }
            awaitSubscribed(channel, cluster.size());
            History.Position start = cluster.get(0).page(channel, rule, null, 10).top();

            List<Thread> publishers = new ArrayList<>();
            List<CompletableFuture<Void>> done = new ArrayList<>();
            int total = 0;
            for (int p = 0; p < cluster.size(); p++) {
                HistoryNode node = cluster.get(p);
                int count = 20 + random.nextInt(40);
                total += count;
                long threadSeed = random.nextLong();
                String name = "n" + p + "-";
                publishers.add(new Thread(() -> {
                    Random own = new Random(threadSeed);
                    for (int i = 0; i < count; i++) {
                        CompletableFuture<Void> published = node.publish(channel, name + i, rule);
                        synchronized (done) {
                            done.add(published);
                        }
                        if (own.nextInt(4) == 0) {
                            Thread.yield();
                        }
                    }
                }));
            }
            List<CompletableFuture<History.Page>> reads = new ArrayList<>();
            List<History.Position> asked = new ArrayList<>();
            publishers.forEach(Thread::start);
            for (int r = 0; r < 40; r++) { // reads while the publishes go on: from random places, and just behind
                HistoryNode reader = cluster.get(random.nextInt(cluster.size()));
                int max = 1 + random.nextInt(60);
                if (r % 2 == 0) {
                    History.Position after = new History.Position(start.epoch(), random.nextInt(total + 2));
                    asked.add(after);
                    reads.add(reader.read(channel, rule, after, max));
                } else { // the top now, less a few: mostly still kept, so a complete page with messages
                    History.Position top = reader.page(channel, rule, null, 1).top();
                    History.Position after = new History.Position(top.epoch(),
                            Math.max(0, top.offset() - random.nextInt(rule.size())));
                    asked.add(after);
                    reads.add(reader.read(channel, rule, after, max));
                }
            }
            for (Thread publisher : publishers) {
                publisher.join();
            }
            for (CompletableFuture<Void> published : done) {
                HistoryNode.await(published);
            }

            int expected = total;
            List<Object> truth = null;
            for (HistoryNode node : cluster) {
                Await.until(HistoryNode.WITHIN, () -> node.delivered(channel).size() >= expected,
                        "every publish delivered (seed " + seed + ")");
                assertEquals(LongStream.rangeClosed(1, total).mapToObj(n -> new History.Position(start.epoch(), n))
                        .toList(), node.positions(channel), "each offset once, in order (seed " + seed + ")");
                List<Object> data = node.delivered(channel).stream().map(Message::getData).toList();
                assertEquals(total, new HashSet<>(data).size(), "each publish once (seed " + seed + ")");
                if (truth == null) {
                    truth = data;
                }
                assertEquals(truth, data, "one order on every node (seed " + seed + ")");
            }
            for (int r = 0; r < reads.size(); r++) {
                History.Page page = HistoryNode.await(reads.get(r));
                long after = asked.get(r).offset();
                if (!page.complete()) {
                    assertEquals(List.of(), page.messages());
                    continue;
                }
                recovered += page.messages().size();
                long top = page.top().offset();
                assertEquals(LongStream.rangeClosed(after + 1, top).mapToObj(n -> new History.Position(start.epoch(),
                        n)).toList(), page.messages().stream().map(History.Position::of).toList(),
                        "a complete page is every offset after the position, once (seed " + seed + ")");
                assertEquals(truth.subList((int) after, (int) top), page.messages().stream().map(Message::getData)
                        .toList(), "and what was published at those offsets (seed " + seed + ")");
            }
        }
        assertTrue(recovered > 0, "some reads were complete and gave messages");
    }

    private static History.Page ttlPage(HistoryNode node, HistoryRule rule, History.Position after) {
        try {
            return node.page("/h/ttl", rule, after, 100);
        } catch (Exception x) {
            throw new AssertionError(x);
        }
    }

    private static List<Object> seq(String prefix, int count) {
        List<Object> seq = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            seq.add(prefix + i);
        }
        return seq;
    }
}
