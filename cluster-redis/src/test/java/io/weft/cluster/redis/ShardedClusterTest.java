package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.cluster.redis.Nodes.Client;
import io.weft.cluster.redis.Nodes.Node;
import io.weft.server.testing.Await;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three Weft servers in one JVM, each with a sharded {@link RedisBroker} on a real Redis Cluster of three shards:
 * subscribers and publishers on every node, channels on every shard; each subscriber receives each broadcast once, in
 * each publisher's order on each channel; wildcards match as in Bayeux although sharded pub/sub has no patterns;
 * service channels and direct deliveries stay on their node; a node subscribes only to what its sessions need.
 */
@Timeout(60)
class ShardedClusterTest {
    @RegisterExtension
    final RedisClusterServer redis = new RedisClusterServer();
    private Nodes nodes;

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
    }

    private Nodes nodes() {
        nodes = new Nodes(redis.seeds(), true);
        return nodes;
    }

    @Test
    void everySubscriberOnEveryNodeReceivesEachPublishOnceInEachPublishersOrderOnEveryShard() throws Exception {
        List<String> rooms = redis.onEveryShard("weft:", "/chat/room");
        String roomA = rooms.get(0);
        String roomB = rooms.get(1);
        String roomC = rooms.get(2);
        Nodes cluster = nodes();
        Node a = cluster.start("a");
        Node b = cluster.start("b");
        Node c = cluster.start("c");
        Map<String, Client> subscribers = new LinkedHashMap<>();
        subscribers.put(roomA, a.client("1", roomA));
        subscribers.put("/**", a.client("2", "/**"));
        subscribers.put("/chat/*", b.client("3", "/chat/*"));
        subscribers.put("/chat/**+" + roomA + "+" + roomC, c.client("4", "/chat/**", roomA, roomC));
        List<Client> publishers = List.of(a.client("p"), b.client("p"), c.client("p"));
        // a: roomA and /** (weft:/* and weft:/**); b: weft:/chat/*; c: weft:/chat/* and weft:/chat/**, roomA, roomC.
        awaitShardChannels(List.of("weft:" + roomA, "weft:/*", "weft:/**", "weft:/chat/*", "weft:/chat/*",
                "weft:/chat/**", "weft:" + roomA, "weft:" + roomC));

        int each = 50;
        String[] names = {"a", "b", "c"};
        for (int n = 0; n < each; n++) {
            for (String room : rooms) {
                for (int p = 0; p < publishers.size(); p++) {
                    publishers.get(p).publish(room, "{\"from\":\"" + names[p] + "\",\"n\":" + n + "}");
                }
            }
        }

        subscribers.get(roomA).await(3 * each, roomA);
        assertOncePerChannelInOrder(subscribers.get(roomA), List.of(roomA), each);
        for (Client everything : List.of(subscribers.get("/**"), subscribers.get("/chat/*"),
                subscribers.get("/chat/**+" + roomA + "+" + roomC))) {
            everything.await(9 * each, "every room");
            assertOncePerChannelInOrder(everything, rooms, each);
        }
        // Each node matches every room, so each gets its own publishes back (dropped) and the others' (delivered).
        // Copies: a's /** and roomA both take roomA's publishes; c's /chat/** and its rooms take roomA's and roomC's.
        Map<Node, Long> copies = Map.of(a, 3L * each, b, 0L, c, 6L * each);
        for (Node node : List.of(a, b, c)) {
            Await.until(Nodes.WITHIN, () -> node.broker().stats(), stats -> stats.published() == 3 * each
                    && stats.received() == 6 * each && stats.droppedOwn() == 3 * each
                    && stats.copies() == copies.get(node), node.name() + " published its " + 3 * each
                    + ", delivered the others' once each, dropped its own, and " + copies.get(node) + " copies");
            RedisBroker.Stats stats = node.broker().stats();
            assertEquals(List.of(0L, 0L, 0L), List.of(stats.publishFailures(), stats.unwanted(), stats.unreadable()),
                    node.name() + ": " + stats);
        }
    }

    @Test
    void wildcardsMatchAcrossNodesAsInBayeuxWithoutPatterns() throws Exception {
        Nodes cluster = nodes();
        Node a = cluster.start("a");
        Node b = cluster.start("b");
        Node c = cluster.start("c");
        Client one = a.client("1", "/w/*");
        Client deep = b.client("2", "/w/**");
        Client odd = b.client("3", "/x[1]/*");
        Client all = a.client("4", "/**");
        Client publisher = c.client("p");
        awaitShardChannels(List.of("weft:/w/*", "weft:/*", "weft:/**", "weft:/w/*", "weft:/w/**", "weft:/x[1]/*"));

        publisher.publish("/w/x/y", "\"deep\"");
        publisher.publish("/w/x", "\"shallow\"");
        publisher.publish("/x1/y", "\"not a glob\"");
        publisher.publish("/x[1]/y", "\"literal\"");
        publisher.publish("/top", "\"top\"");
        publisher.publish("/w", "\"parent\"");
        publisher.publish("/w/marker", "\"marker\"");

        // /w/** listens to weft:/w/* and weft:/w/**, /** to weft:/* and weft:/**: names on different shards, whose
        // messages need not come in the order they were published in. Compare them as sets.
        assertEquals(sorted("deep", "shallow", "marker"), sorted(data(deep.await(3, "/w/** gets its three"))));
        assertEquals(List.of("literal"), data(odd.await(1, "/x[1]/* gets its literal channel")));
        assertEquals(sorted("deep", "shallow", "not a glob", "literal", "top", "parent", "marker"),
                sorted(data(all.await(7, "/** gets everything"))));
        assertEquals(List.of("shallow", "marker"), data(one.await(2, "/w/* gets /w/x and the marker")));
        assertEquals(0, a.broker().stats().unwanted() + b.broker().stats().unwanted(),
                "shard channels are exact: nothing came that no session wanted");
        assertEquals(List.of("shallow", "marker"), one.data(), "nothing deeper reached /w/*, nor /w");
        assertEquals(3, deep.data().size(), "/w is not below /w/**");
        assertEquals(7, all.data().size(), "each once");
    }

    @Test
    void serviceChannelsAndDirectDeliveriesStayOnTheirNode() throws Exception {
        nodes().assertServiceChannelsAndDeliveriesStayOnTheirNode(
                () -> awaitShardChannels(List.of("weft:/echo", "weft:/echo", "weft:/marker")));
    }

    @Test
    void aNodeSubscribesOnlyToWhatItsSessionsNeedAndLetsGoWhenTheLastLeaves() throws Exception {
        Nodes cluster = nodes();
        Node a = cluster.start("a");
        cluster.start("b");
        awaitShardChannels(List.of());

        Client first = a.client("1", "/news/x", "/news/*");
        Client second = a.client("2", "/news/x", "/news/**", "/sport/y");
        awaitShardChannels(List.of("weft:/news/x", "weft:/news/*", "weft:/news/**", "weft:/sport/y"));
        assertEquals(1, redis.shardNumsub("weft:/news/*"), "/news/* and /news/** share one shard channel");
        assertEquals(new RedisBroker.Stats(0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, true, 0, 0, 0), a.broker().stats());

        unsubscribe(first, "/news/*");
        unsubscribe(second, "/news/**");
        awaitShardChannels(List.of("weft:/news/x", "weft:/sport/y"));
        second.socket.send("[{\"channel\":\"/meta/disconnect\",\"clientId\":\"" + second.socket.clientId() + "\"}]");
        awaitShardChannels(List.of("weft:/news/x"));
        first.socket.send("[{\"channel\":\"/meta/disconnect\",\"clientId\":\"" + first.socket.clientId() + "\"}]");
        awaitShardChannels(List.of());
        assertEquals(0, a.broker().stats().channels());
    }

    /**
     * Waits until the shards together have exactly {@code names} subscribed, each on the shard that owns it, by as many
     * clients (nodes) as it is listed.
     */
    private void awaitShardChannels(List<String> names) throws Exception {
        Map<String, RedisClusterServer.Subscribed> expected = new TreeMap<>();
        for (String name : names) {
            RedisClusterServer.Subscribed already = expected.get(name);
            expected.put(name, new RedisClusterServer.Subscribed(redis.shardOf(name),
                    already == null ? 1 : already.clients() + 1));
        }
        Await.until(Nodes.WITHIN, () -> {
            try {
                return redis.shardChannels();
            } catch (IOException x) {
                return Map.of(x.toString(), new RedisClusterServer.Subscribed(-1, -1));
            }
        }, expected::equals, "the shards have " + expected);
    }

    private static void unsubscribe(Client client, String channel) {
        client.socket.send("[{\"channel\":\"/meta/unsubscribe\",\"subscription\":\"" + channel + "\",\"clientId\":\""
                + client.socket.clientId() + "\"}]");
    }

    private static List<String> sorted(Object... items) {
        return sorted(List.of(items));
    }

    private static List<String> sorted(List<Object> items) {
        return items.stream().map(String::valueOf).sorted().toList();
    }

    private static List<Object> data(List<Map<String, Object>> messages) {
        return messages.stream().map(message -> message.get("data")).toList();
    }

    /**
     * Each of a, b and c published 0..each-1 to each of {@code channels}: the client got each once, and, per channel,
     * in each publisher's order (sharded pub/sub keeps a publisher's order per channel, not across shards).
     */
    static void assertOncePerChannelInOrder(Client client, List<String> channels, int each) {
        Map<String, List<Object>> byPublisherAndChannel = new HashMap<>();
        for (Map<String, Object> message : client.broadcasts()) {
            @SuppressWarnings("unchecked")
            Map<String, Object> data = (Map<String, Object>) message.get("data");
            byPublisherAndChannel.computeIfAbsent(data.get("from") + " " + message.get("channel"),
                    key -> new ArrayList<>()).add(((Number) data.get("n")).intValue());
        }
        List<Integer> expected = new ArrayList<>();
        for (int n = 0; n < each; n++) {
            expected.add(n);
        }
        TreeSet<String> keys = new TreeSet<>();
        for (String from : List.of("a", "b", "c")) {
            for (String channel : channels) {
                keys.add(from + " " + channel);
            }
        }
        assertEquals(keys, new TreeSet<>(byPublisherAndChannel.keySet()));
        byPublisherAndChannel.forEach((key, numbers) -> assertEquals(expected, numbers, key + ": once each, in order"));
    }
}
