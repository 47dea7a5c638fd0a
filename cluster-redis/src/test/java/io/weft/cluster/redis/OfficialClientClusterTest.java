package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.cluster.redis.RedisClusterTest.Redis;
import io.weft.cluster.redis.examples.ClusterNode;
import io.weft.server.testing.Await;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * Three Weft nodes on embedded Jetty over real sockets ({@code WeftJetty.mount}, as {@link ClusterNode} shows), joined by Redis, and the official
 * CometD 9 Java client, unchanged, on each: websocket on two nodes, long-polling on the third. Every client publishes
 * and every client receives every publish once, in each publisher's order.
 */
@Timeout(30)
class OfficialClientClusterTest {
    @RegisterExtension
    final RedisServer redis = new RedisServer();
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
    void officialClientsOnThreeNodesEachReceiveEveryPublishOnceInOrder() throws Exception {
        clients = new OfficialClients();
        String[] names = {"a", "b", "c"};
        List<BayeuxClient> cluster = List.of(
                clients.client(node(), true), clients.client(node(), false), clients.client(node(), true));
        List<List<Map<String, Object>>> received = new ArrayList<>();
        for (BayeuxClient client : cluster) {
            client.handshake();
            assertTrue(client.waitFor(5000, BayeuxClient.State.CONNECTED), "connected");
            List<Map<String, Object>> inbox = new CopyOnWriteArrayList<>();
            received.add(inbox);
            CompletableFuture<Message> subscribed = new CompletableFuture<>();
            client.getChannel("/chat/room").subscribe((channel, message) -> inbox.add(message.getDataAsMap()),
                    subscribed::complete);
            assertTrue(subscribed.get(5, TimeUnit.SECONDS).isSuccessful());
        }
        assertEquals("websocket", cluster.get(0).getTransport().getName());
        assertEquals("long-polling", cluster.get(1).getTransport().getName());
        Redis.awaitSubscribed(redis, 3, 0);

        // The official long-polling client sends each publish in a request of its own, on as many connections as it
        // likes: a publisher's order is its own only if it waits for each reply (or batches). All three do.
        int each = 20;
        for (int n = 0; n < each; n++) {
            List<CompletableFuture<Message>> replies = new ArrayList<>();
            for (int i = 0; i < cluster.size(); i++) {
                CompletableFuture<Message> reply = new CompletableFuture<>();
                cluster.get(i).getChannel("/chat/room").publish(Map.of("from", names[i], "n", n), reply::complete);
                replies.add(reply);
            }
            for (CompletableFuture<Message> reply : replies) {
                assertTrue(reply.get(5, TimeUnit.SECONDS).isSuccessful());
            }
        }

        for (int i = 0; i < cluster.size(); i++) {
            List<Map<String, Object>> inbox = received.get(i);
            Await.until(Nodes.WITHIN, inbox::size, size -> size >= 3 * each, names[i] + " got every publish");
            Map<Object, List<Object>> byPublisher = new HashMap<>();
            for (Map<String, Object> data : inbox) {
                byPublisher.computeIfAbsent(data.get("from"), from -> new ArrayList<>())
                        .add(((Number) data.get("n")).intValue());
            }
            for (String from : names) {
                List<Object> expected = new ArrayList<>();
                for (int n = 0; n < each; n++) {
                    expected.add(n);
                }
                assertEquals(expected, byPublisher.get(from), names[i] + " from " + from + ": once each, in order");
            }
        }
    }

    /** A Weft node on embedded Jetty, loopback, port 0, as the README shows it; returns its Bayeux URL. */
    private String node() throws Exception {
        return nodes.start(RedisBrokerOptions.of(redis.uri()));
    }
}
