package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.cluster.redis.RedisClusterTest.Redis;
import io.weft.cluster.redis.examples.ClusterNode;
import io.weft.server.api.BayeuxServer;
import io.weft.server.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.cometd.bayeux.Channel;
import org.cometd.bayeux.client.ClientSessionChannel;
import org.cometd.client.BayeuxClient;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node dies under its clients: node a runs in a process of its own and is killed (SIGKILL). Behind a balancer (the
 * test's {@link Balancer}, which keeps each connection on the first node that takes it), a's official clients find
 * node b answering {@code 402::session_unknown}, handshake there, subscribe again, and receive what node c publishes
 * through Redis; Redis has dropped a's connections and subscriptions by itself.
 */
@Timeout(30)
class NodeFailoverTest {
    @RegisterExtension
    final RedisServer redis = new RedisServer();
    private final List<Server> jetties = new ArrayList<>();
    private OfficialClients clients;
    private Balancer balancer;
    private NodeProcess a;

    @AfterEach
    void stop() throws Exception {
        if (clients != null) {
            clients.close();
        }
        if (balancer != null) {
            balancer.close();
        }
        if (a != null) {
            a.close();
        }
        for (Server jetty : jetties) {
            close(jetty);
        }
    }

    @Test
    void theClientsOfADeadNodeHandshakeOnAnotherAndKeepReceiving() throws Exception {
        clients = new OfficialClients();
        a = new NodeProcess(redis.uri());
        Server b = node();
        Server c = node();
        balancer = new Balancer(List.of(a.port(), port(b)));
        String behindBalancer = "http://127.0.0.1:" + balancer.port() + "/cometd";
        BayeuxClient publisher = clients.client("http://127.0.0.1:" + port(c) + "/cometd", true);
        BayeuxClient overWebSocket = clients.client(behindBalancer, true);
        BayeuxClient overLongPolling = clients.client(behindBalancer, false);
        // As CometD's documentation has it: subscribe on every successful handshake, as a new session has none.
        List<BlockingQueue<Object>> inboxes = new ArrayList<>();
        for (BayeuxClient client : List.of(overWebSocket, overLongPolling)) {
            BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
            inboxes.add(inbox);
            client.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener)
                    (channel, reply) -> {
                        if (reply.isSuccessful()) {
                            client.getChannel("/chat/room").subscribe((room, message) -> inbox.add(message.getData()));
                        }
                    });
        }
        for (BayeuxClient client : List.of(publisher, overWebSocket, overLongPolling)) {
            client.handshake();
            assertTrue(client.waitFor(5000, BayeuxClient.State.CONNECTED), "connected");
        }
        Redis.awaitSubscribed(redis, 1, 0);
        assertEquals(List.of(), bayeux(b).getChannels().stream().filter(channel -> channel.getId().equals("/chat/room"))
                .toList(), "the balancer sent both to a, which alone subscribes in Redis");
        publisher.getChannel("/chat/room").publish("before");
        for (BlockingQueue<Object> inbox : inboxes) {
            assertEquals("before", inbox.poll(5, TimeUnit.SECONDS));
        }

        String[] before = {overWebSocket.getId(), overLongPolling.getId()};
        a.kill();
        Await.until(Nodes.WITHIN, () -> Redis.clients(redis), count -> count == 4, "only b's and c's connections "
                + "left in Redis");

        for (BayeuxClient client : List.of(overWebSocket, overLongPolling)) {
            Await.until(Duration.ofSeconds(15), () -> client.isConnected() && bayeux(b).getSession(client.getId())
                    != null, "the client handshook on b");
        }
        assertNotEquals(before[0], overWebSocket.getId());
        assertNotEquals(before[1], overLongPolling.getId());
        // Subscribed again after the new handshake: b asks Redis for the channel, and a is gone from it.
        awaitSubscribers(b, 2);
        Redis.awaitSubscribed(redis, 1, 0);
        publisher.getChannel("/chat/room").publish("after");
        for (BlockingQueue<Object> inbox : inboxes) {
            assertEquals("after", inbox.poll(5, TimeUnit.SECONDS), "published on c, received through b");
        }
    }

    private static void awaitSubscribers(Server node, int count) throws InterruptedException {
        Await.until(Nodes.WITHIN, () -> bayeux(node).getChannels().stream()
                .anyMatch(channel -> channel.getId().equals("/chat/room") && channel.getSubscribers().size() == count),
                count + " subscribers of /chat/room on the node");
    }

    private Server node() throws Exception {
        Server jetty = ClusterNode.start(redis.uri(), 0);
        jetties.add(jetty);
        return jetty;
    }

    private static BayeuxServer bayeux(Server jetty) {
        return jetty.getBean(BayeuxServer.class);
    }

    private static int port(Server jetty) {
        return ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
    }

    private static void close(Server jetty) throws Exception {
        if (jetty.isRunning()) {
            jetty.stop();
        }
        bayeux(jetty).close();
    }
}
