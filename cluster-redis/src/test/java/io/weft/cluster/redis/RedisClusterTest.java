package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.cluster.redis.Nodes.Client;
import io.weft.cluster.redis.Nodes.Node;
import io.weft.server.testing.Await;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three Weft servers in one JVM, each with a {@link RedisBroker} on a real {@code redis-server} of the test's own:
 * subscribers and publishers on every node; each subscriber receives each broadcast once, in each publisher's order;
 * wildcards match across nodes as in Bayeux; service channels and direct deliveries stay on their node; a node
 * subscribes in Redis only to what its sessions need.
 */
@Timeout(30)
class RedisClusterTest {
    @RegisterExtension
    final RedisServer redis = new RedisServer();
    private Nodes nodes;

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
    }

    private Nodes nodes() {
        nodes = new Nodes(redis.uri());
        return nodes;
    }

    @Test
    void everySubscriberOnEveryNodeReceivesEachPublishOnceInEachPublishersOrder() throws Exception {
        Nodes cluster = nodes();
        Node a = cluster.start("a");
        Node b = cluster.start("b");
        Node c = cluster.start("c");
        List<Client> subscribers = List.of(
                a.client("1", "/chat/room"),
                b.client("2", "/chat/room"),
                c.client("3", "/chat/room"),
                c.client("4", "/chat/*", "/chat/room", "/chat/**"));
        Client fromA = a.client("p");
        Client fromB = b.client("p");
        Client fromC = c.client("p", "/chat/room");
        // Redis: /chat/room from each node, and one pattern (weft:/chat/*, for both wildcards) from c.
        Redis.awaitSubscribed(redis, 3, 1);

        int each = 100;
        for (int i = 0; i < each; i++) {
            fromA.publish("/chat/room", "{\"from\":\"a\",\"n\":" + i + "}");
            fromB.publish("/chat/room", "{\"from\":\"b\",\"n\":" + i + "}");
            fromC.publish("/chat/room", "{\"from\":\"c\",\"n\":" + i + "}");
        }

        List<Client> everyone = new ArrayList<>(subscribers);
        everyone.add(fromC);
        for (Client subscriber : everyone) {
            subscriber.await(3 * each, "all publishes");
            assertInPublisherOrder(subscriber.data(), each);
        }
        // Counts lag the deliveries they count by a moment: wait for each to reach its value, then check nothing more.
        for (Node node : List.of(a, b, c)) {
            Await.until(Nodes.WITHIN, () -> node.broker().stats(), stats -> stats.published() == each
                    && stats.received() == 2 * each && stats.droppedOwn() == each, node.name() + " published its "
                    + each + ", delivered the other two nodes' publishes once each, dropped its own once each");
        }
        Await.until(Nodes.WITHIN, () -> c.broker().stats().copies() == 3 * each,
                "c subscribes /chat/room and weft:/chat/*: Redis sent it each publish twice, delivered once");
        for (Node node : List.of(a, b, c)) {
            RedisBroker.Stats stats = node.broker().stats();
            assertEquals(List.of((long) each, 2L * each, (long) each, 0L),
                    List.of(stats.published(), stats.received(), stats.droppedOwn(), stats.publishFailures()),
                    node.name() + ": " + stats);
        }
        assertEquals(3 * each, c.broker().stats().copies());
    }

    @Test
    void wildcardsMatchAcrossNodesAsInBayeuxNotAsRedisGlobs() throws Exception {
        Nodes cluster = nodes();
        Node a = cluster.start("a");
        Node b = cluster.start("b");
        Node c = cluster.start("c");
        Client one = a.client("1", "/w/*");
        Client deep = b.client("2", "/w/**");
        Client odd = b.client("3", "/x[1]/*");
        Client publisher = c.client("p");
        Redis.awaitSubscribed(redis, 0, 3);

        publisher.publish("/w/x/y", "\"deep\"");
        publisher.publish("/w/x", "\"shallow\"");
        publisher.publish("/x1/y", "\"not a glob\"");
        publisher.publish("/x[1]/y", "\"literal\"");

        assertEquals(List.of("deep", "shallow"), deep.await(2, "/w/** gets both").stream()
                .map(m -> m.get("data")).toList());
        assertEquals(List.of("literal"), odd.await(1, "/x[1]/* gets its literal channel").stream()
                .map(m -> m.get("data")).toList());
        assertEquals(List.of("shallow"), one.await(1, "/w/* gets /w/x").stream().map(m -> m.get("data")).toList());
        Await.until(Nodes.WITHIN, () -> a.broker().stats().unwanted() == 1, "a dropped /w/x/y, which its pattern "
                + "weft:/w/* matched in Redis but /w/* does not in Bayeux");
        assertEquals(List.of("shallow"), one.data(), "nothing more reached /w/*");
        assertEquals(1, odd.data().size(), "[1] is not a character class in the Redis pattern");
    }

    @Test
    void serviceChannelsAndDirectDeliveriesStayOnTheirNode() throws Exception {
        nodes().assertServiceChannelsAndDeliveriesStayOnTheirNode(() -> {
            Redis.awaitSubscribed(redis, 3, 0);
            assertEquals(Set.of("weft:/echo", "weft:/marker"), Redis.channels(redis),
                    "/service/** is not asked of Redis; /echo twice (a and b) is one channel");
        });
    }

    @Test
    void aNodeSubscribesInRedisOnlyToWhatItsSessionsNeed() throws Exception {
        Nodes cluster = nodes();
        Node a = cluster.start("a");
        cluster.start("b");
        Redis.awaitSubscribed(redis, 0, 0);

        Client first = a.client("1", "/news/x", "/news/*");
        Client second = a.client("2", "/news/x", "/news/**", "/sport/y");
        Redis.awaitSubscribed(redis, 2, 1);
        assertEquals(Set.of("weft:/news/x", "weft:/sport/y"), Redis.channels(redis));
        assertEquals(1, Redis.numpat(redis), "/news/* and /news/** share one Redis pattern, weft:/news/*");
        assertEquals(new RedisBroker.Stats(0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, true, 0, 0, 0), a.broker().stats());

        first.socket.send("[{\"channel\":\"/meta/unsubscribe\",\"subscription\":\"/news/*\",\"clientId\":\""
                + first.socket.clientId() + "\"}]");
        Redis.awaitSubscribed(redis, 2, 1); // /news/** still needs the pattern
        second.socket.send("[{\"channel\":\"/meta/unsubscribe\",\"subscription\":\"/news/**\",\"clientId\":\""
                + second.socket.clientId() + "\"}]");
        Redis.awaitSubscribed(redis, 2, 0);
        second.socket.send("[{\"channel\":\"/meta/disconnect\",\"clientId\":\"" + second.socket.clientId() + "\"}]");
        Redis.awaitSubscribed(redis, 1, 0);
        assertEquals(Set.of("weft:/news/x"), Redis.channels(redis), "first still listens to /news/x");
        first.socket.send("[{\"channel\":\"/meta/disconnect\",\"clientId\":\"" + first.socket.clientId() + "\"}]");
        Redis.awaitSubscribed(redis, 0, 0);
    }

    private static void assertInPublisherOrder(List<Object> data, int each) {
        Map<Object, List<Object>> byPublisher = new HashMap<>();
        for (Object item : data) {
            @SuppressWarnings("unchecked")
            Map<String, Object> message = (Map<String, Object>) item;
            byPublisher.computeIfAbsent(message.get("from"), from -> new ArrayList<>()).add(message.get("n"));
        }
        List<Object> expected = new ArrayList<>();
        for (int i = 0; i < each; i++) {
            expected.add(i);
        }
        assertEquals(new TreeSet<>(List.of("a", "b", "c")), new TreeSet<>(byPublisher.keySet()));
        byPublisher.forEach((from, numbers) -> assertEquals(expected, numbers, "from " + from + ", once, in order"));
    }

    /** What Redis itself says about its pub/sub clients (not what the brokers believe). */
    static final class Redis {
        private Redis() {
        }

        /** Waits until Redis's clients together subscribe to {@code channels} channels and {@code patterns} patterns. */
        static void awaitSubscribed(RedisServer redis, int channels, int patterns) throws InterruptedException {
            Await.until(Nodes.WITHIN, () -> counts(redis), seen -> seen.equals(List.of(channels, patterns)),
                    "Redis has " + channels + " channel and " + patterns + " pattern subscriptions");
        }

        /** PUBSUB CHANNELS: the channels at least one client subscribes to. */
        static Set<String> channels(RedisServer redis) throws IOException {
            return new TreeSet<>(redis.command("PUBSUB", "CHANNELS"));
        }

        /** PUBSUB NUMPAT: how many distinct patterns the clients subscribe to (Redis does not list them). */
        static int numpat(RedisServer redis) throws IOException {
            return Integer.parseInt(redis.command("PUBSUB", "NUMPAT").get(0));
        }

        /** How many clients Redis has, besides the one asking. */
        static int clients(RedisServer redis) {
            try {
                return redis.command("CLIENT", "LIST").get(0).split("\n").length - 1;
            } catch (IOException x) {
                return -1;
            }
        }

        /** The sums of CLIENT LIST's sub= and psub= over every client. */
        private static List<Integer> counts(RedisServer redis) {
            int[] sums = new int[2];
            try {
                for (String line : redis.command("CLIENT", "LIST").get(0).split("\n")) {
                    for (String field : line.trim().split(" ")) {
                        if (field.startsWith("sub=")) {
                            sums[0] += Integer.parseInt(field.substring(4));
                        } else if (field.startsWith("psub=")) {
                            sums[1] += Integer.parseInt(field.substring(5));
                        }
                    }
                }
            } catch (IOException x) {
                return List.of(-1, -1);
            }
            return List.of(sums[0], sums[1]);
        }
    }
}
