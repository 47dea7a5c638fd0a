package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.cluster.redis.examples.ClusterNode;
import io.weft.server.testing.Await;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.cometd.bayeux.Message;
import org.cometd.client.BayeuxClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three Weft nodes on embedded Jetty over real sockets ({@link ClusterNode}), joined by sharded pub/sub on a real Redis
 * Cluster of three shards, and the official CometD 9 Java client on each: websocket on two nodes, long-polling on the
 * third, with exact and wildcard subscriptions over channels on every shard. Every client publishes; each client
 * receives each publish it subscribed to once, in each publisher's order on each channel.
 */
@Timeout(60)
class ShardedOfficialClientTest {
    @RegisterExtension
    final RedisClusterServer redis = new RedisClusterServer();
    private final JettyNodes nodes = new JettyNodes();
    private OfficialClients clients;

    @AfterEach
    void stop() throws Exception {
        if (clients != null) {
            clients.close();
        }
        nodes.close();
    }

    @Test
    void officialClientsOnThreeNodesReceiveEachPublishTheySubscribedToOnceInOrder() throws Exception {
        List<String> rooms = redis.onEveryShard("weft:", "/chat/room");
        clients = new OfficialClients();
        String[] names = {"a", "b", "c"};
        List<BayeuxClient> cluster = List.of(
                clients.client(node(), true), clients.client(node(), false), clients.client(node(), true));
        // a: one room and everything below /chat (a copy of that room's publishes comes on each name; delivered once);
        // b: the children of /chat; c: two rooms. The official client hands a message to the listeners of its channel
        // and of each wildcard that matches it, so a records what its /chat/** listener is given: every message the
        // server sent it, once each or twice.
        List<List<String>> subscriptions = List.of(List.of(rooms.get(0), "/chat/**"), List.of("/chat/*"),
                List.of(rooms.get(1), rooms.get(2)));
        List<List<String>> expectedRooms = List.of(rooms, rooms, List.of(rooms.get(1), rooms.get(2)));
        List<List<Map<String, Object>>> received = new ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) {
            BayeuxClient client = cluster.get(i);
            client.handshake();
            assertTrue(client.waitFor(5000, BayeuxClient.State.CONNECTED), "connected");
            List<Map<String, Object>> inbox = new CopyOnWriteArrayList<>();
            received.add(inbox);
            for (String channel : subscriptions.get(i)) {
                CompletableFuture<Message> subscribed = new CompletableFuture<>();
                boolean record = i != 0 || channel.equals("/chat/**");
                client.getChannel(channel).subscribe((to, message) -> {
                    if (record) {
                        inbox.add(Map.of("channel", message.getChannel(), "data", message.getDataAsMap()));
                    }
                }, subscribed::complete);
                assertTrue(subscribed.get(5, TimeUnit.SECONDS).isSuccessful());
            }
        }
        assertEquals("long-polling", cluster.get(1).getTransport().getName());
        // a: weft:room0, weft:/chat/*, weft:/chat/**; b: weft:/chat/*; c: weft:room1, weft:room2.
        Await.until(Nodes.WITHIN, () -> {
            try {
                return redis.shardChannels().values().stream().mapToInt(RedisClusterServer.Subscribed::clients).sum();
            } catch (java.io.IOException x) {
                return -1;
            }
        }, total -> total == 6, "the shards have every node's subscriptions");

        // Each publisher waits for each reply: the official long-polling client keeps a publisher's order only so.
        int each = 10;
        for (int n = 0; n < each; n++) {
            for (String room : rooms) {
                List<CompletableFuture<Message>> replies = new ArrayList<>();
                for (int i = 0; i < cluster.size(); i++) {
                    CompletableFuture<Message> reply = new CompletableFuture<>();
                    cluster.get(i).getChannel(room).publish(Map.of("from", names[i], "n", n), reply::complete);
                    replies.add(reply);
                }
                for (CompletableFuture<Message> reply : replies) {
                    assertTrue(reply.get(5, TimeUnit.SECONDS).isSuccessful());
                }
            }
        }

        for (int i = 0; i < cluster.size(); i++) {
            List<Map<String, Object>> inbox = received.get(i);
            int expected = 3 * each * expectedRooms.get(i).size();
            Await.until(Nodes.WITHIN, inbox::size, size -> size >= expected, names[i] + " got " + expected);
            Map<String, List<Object>> byPublisherAndRoom = new HashMap<>();
            for (Map<String, Object> message : inbox) {
                @SuppressWarnings("unchecked")
                Map<String, Object> data = (Map<String, Object>) message.get("data");
                byPublisherAndRoom.computeIfAbsent(data.get("from") + " " + message.get("channel"),
                        key -> new ArrayList<>()).add(((Number) data.get("n")).intValue());
            }
            TreeSet<String> keys = new TreeSet<>();
            for (String from : names) {
                for (String room : expectedRooms.get(i)) {
                    keys.add(from + " " + room);
                }
            }
            assertEquals(keys, new TreeSet<>(byPublisherAndRoom.keySet()), names[i]);
            List<Object> inOrder = new ArrayList<>();
            for (int n = 0; n < each; n++) {
                inOrder.add(n);
            }
            for (Map.Entry<String, List<Object>> entry : byPublisherAndRoom.entrySet()) {
                assertEquals(inOrder, entry.getValue(), names[i] + " from " + entry.getKey() + ": once each, in order");
            }
        }
    }

    /** A Weft node on embedded Jetty, loopback, port 0, sharded on the test's Redis Cluster; returns its URL. */
    private String node() throws Exception {
        return nodes.start(RedisBrokerOptions.builder(redis.seeds()).sharded(true).build());
    }
}
