package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.cluster.redis.examples.ClusterNode;
import io.weft.server.api.BayeuxServer;
import io.weft.server.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * A node drained as a rolling restart drains it: official CometD Java clients, over websocket and long-polling, behind
 * the test's {@link Balancer}, are told at their moments to handshake again; their connections are closed behind the
 * answer (1001, {@code Connection: close}), so their next ones go through the balancer, which (having seen node a's
 * {@code /health} turn 503) sends them to node b. There they handshake, subscribe again and receive what is published.
 */
@Timeout(60)
class DrainedNodeTest {
    @RegisterExtension
    final RedisServer redis = new RedisServer();
    private final List<Server> jetties = new ArrayList<>();
    private OfficialClients clients;
    private Balancer balancer;

    @AfterEach
    void stop() throws Exception {
        if (clients != null) {
            clients.close();
        }
        if (balancer != null) {
            balancer.close();
        }
        for (Server jetty : jetties) {
            if (jetty.isRunning()) {
                jetty.stop();
            }
            bayeux(jetty).close();
        }
    }

    @Test
    void officialClientsOfADrainedNodeHandshakeOnAnotherAndKeepReceiving() throws Exception {
        clients = new OfficialClients();
        Server a = node();
        Server b = node();
        balancer = new Balancer(List.of(port(a), port(b)));
        String behindBalancer = "http://127.0.0.1:" + balancer.port() + "/cometd";
        BayeuxClient publisher = clients.client("http://127.0.0.1:" + port(b) + "/cometd", true);
        List<BayeuxClient> moving = List.of(clients.client(behindBalancer, true), clients.browser(behindBalancer));
        Map<BayeuxClient, AtomicInteger> handshakes = new ConcurrentHashMap<>();
        Map<BayeuxClient, BlockingQueue<Object>> inboxes = new ConcurrentHashMap<>();
        for (BayeuxClient client : moving) {
            AtomicInteger handshook = new AtomicInteger();
            BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
            handshakes.put(client, handshook);
            inboxes.put(client, inbox);
            client.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener)
                    (channel, reply) -> {
                        if (reply.isSuccessful()) {
                            handshook.incrementAndGet();
                            client.getChannel("/chat/room").subscribe((room, message) -> inbox.add(message.getData()));
                        }
                    });
        }
        for (BayeuxClient client : List.of(publisher, moving.get(0), moving.get(1))) {
            client.handshake();
            assertTrue(client.waitFor(5000, BayeuxClient.State.CONNECTED), "connected");
        }
        for (BayeuxClient client : moving) {
            assertTrue(bayeux(a).getSession(client.getId()) != null, "the balancer sent every client to a");
        }
        Await.until(Nodes.WITHIN, () -> subscribers(a) == 2, "both subscribed on a");
        publisher.getChannel("/chat/room").publish("before");
        for (BayeuxClient client : moving) {
            assertEquals("before", inboxes.get(client).poll(5, TimeUnit.SECONDS));
        }
        String[] before = {moving.get(0).getId(), moving.get(1).getId()};

        CompletionStage<Void> drained = bayeux(a).drain(Duration.ofSeconds(2));
        assertEquals(503, health(a), "/health turns 503 at once");
        balancer.stopRouting(port(a)); // as a balancer does once it reads that 503
        drained.toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertTrue(bayeux(a).isClosed(), "closed at the end of the window");
        assertEquals(2, bayeux(a).getStats().sessionsDrained());

        for (BayeuxClient client : moving) {
            Await.until(Duration.ofSeconds(20), () -> client.isConnected()
                    && bayeux(b).getSession(client.getId()) != null, "the client handshook again, on b");
            assertEquals(2, handshakes.get(client).get(), "one handshake on a, one on b");
        }
        assertNotEquals(before[0], moving.get(0).getId());
        assertNotEquals(before[1], moving.get(1).getId());
        Await.until(Nodes.WITHIN, () -> subscribers(b) == 2, "both subscribed again, on b");
        publisher.getChannel("/chat/room").publish("after");
        for (BayeuxClient client : moving) {
            assertEquals("after", inboxes.get(client).poll(5, TimeUnit.SECONDS), "received on b");
        }
    }

    private static int health(Server node) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port(node) + "/health")).build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode();
    }

    private static int subscribers(Server node) {
        return bayeux(node).getChannels().stream().filter(channel -> channel.getId().equals("/chat/room"))
                .mapToInt(channel -> channel.getSubscribers().size()).sum();
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
}
