package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.cluster.redis.examples.ClusterNode;
import io.weft.server.api.BayeuxServer;
import io.weft.server.testing.Await;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.cometd.bayeux.Channel;
import org.cometd.bayeux.Message;
import org.cometd.bayeux.client.ClientSessionChannel;
import org.cometd.client.BayeuxClient;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The module's {@code haproxy.cfg}, as the README shows it (only its ports changed), in front of two nodes: official
 * long-polling clients keep their session on the node that made it (each handshakes once) and websocket clients need
 * nothing; all of them, on both nodes, receive every publish once, in order. Needs Debian's {@code haproxy} (skipped
 * without it; {@code .ci/run} installs it).
 */
@Timeout(30)
class HaproxyAffinityTest {
    @RegisterExtension
    final RedisServer redis = new RedisServer();
    private final List<Server> nodes = new ArrayList<>();
    private OfficialClients clients;
    private Process haproxy;
    private Path config;
    private Path log;

    @AfterEach
    void stop() throws Exception {
        if (clients != null) {
            clients.close();
        }
        if (haproxy != null) {
            haproxy.destroy();
            haproxy.waitFor(5, TimeUnit.SECONDS);
            haproxy.destroyForcibly();
        }
        for (Server node : nodes) {
            if (node.isRunning()) {
                node.stop();
            }
            node.getBean(BayeuxServer.class).close();
        }
        if (config != null) {
            Files.deleteIfExists(config);
            Files.deleteIfExists(log);
        }
    }

    @Test
    void longPollingClientsStayOnTheirNodeThroughTheCookieAndWebSocketNeedsNothing() throws Exception {
        assumeTrue(onPath("haproxy"), "needs Debian's haproxy (apt-get install haproxy)");
        Server a = node();
        Server b = node();
        int front = balance(port(a), port(b));
        String url = "http://127.0.0.1:" + front + "/cometd";

        clients = new OfficialClients();
        int each = 10;
        List<BayeuxClient> cluster = new ArrayList<>();
        List<AtomicInteger> handshakes = new ArrayList<>();
        List<List<Map<String, Object>>> inboxes = new ArrayList<>();
        for (boolean webSocket : new boolean[] {false, false, false, false, true, true}) {
            BayeuxClient client = clients.client(url, webSocket);
            AtomicInteger handshook = new AtomicInteger();
            List<Map<String, Object>> inbox = new CopyOnWriteArrayList<>();
            client.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener)
                    (channel, reply) -> {
                        if (reply.isSuccessful()) {
                            handshook.incrementAndGet();
                            client.getChannel("/chat/room").subscribe((room, message) ->
                                    inbox.add(message.getDataAsMap()));
                        }
                    });
            client.handshake();
            assertTrue(client.waitFor(5000, BayeuxClient.State.CONNECTED), "connected through haproxy");
            cluster.add(client);
            handshakes.add(handshook);
            inboxes.add(inbox);
        }
        Await.until(Nodes.WITHIN, () -> subscribers(a) + subscribers(b) == cluster.size(), "everyone subscribed");
        assertTrue(subscribers(a) > 0 && subscribers(b) > 0, "round robin used both nodes: " + subscribers(a) + "/"
                + subscribers(b));
        RedisClusterTest.Redis.awaitSubscribed(redis, 2, 0);

        for (int n = 0; n < each; n++) {
            List<CompletableFuture<Message>> replies = new ArrayList<>();
            for (int i = 0; i < cluster.size(); i++) {
                CompletableFuture<Message> reply = new CompletableFuture<>();
                cluster.get(i).getChannel("/chat/room").publish(Map.of("from", i, "n", n), reply::complete);
                replies.add(reply);
            }
            for (CompletableFuture<Message> reply : replies) {
                assertTrue(reply.get(5, TimeUnit.SECONDS).isSuccessful(), "publish refused: a long-polling request "
                        + "went to a node that does not know its session (without the cookie line, it does)");
            }
        }

        for (int i = 0; i < cluster.size(); i++) {
            List<Map<String, Object>> inbox = inboxes.get(i);
            Await.until(Nodes.WITHIN, inbox::size, size -> size >= cluster.size() * each, "client " + i + " got all");
            Map<Object, List<Object>> byPublisher = new HashMap<>();
            for (Map<String, Object> data : inbox) {
                byPublisher.computeIfAbsent(data.get("from"), from -> new ArrayList<>())
                        .add(((Number) data.get("n")).intValue());
            }
            List<Object> expected = new ArrayList<>();
            for (int n = 0; n < each; n++) {
                expected.add(n);
            }
            byPublisher.values().forEach(numbers -> assertEquals(expected, numbers, "once each, in order"));
            assertEquals(1, handshakes.get(i).get(), "client " + i + " kept its first session: no 402, no new "
                    + "handshake");
        }
    }

    /**
     * The restart the issue measured: long-polling clients whose node drains and stops handshake again on the other
     * node, and when their old node comes back they stay where they are (HAProxy set its cookie again when it sent
     * them over), instead of being pulled back by a stale cookie to a second {@code 402} and a third handshake.
     */
    @Test
    @Timeout(90)
    void longPollingClientsMovedOffADrainedNodeStayOnTheirNewNodeWhenItComesBack() throws Exception {
        assumeTrue(onPath("haproxy"), "needs Debian's haproxy (apt-get install haproxy)");
        Server a = node();
        Server b = node();
        int portOfA = port(a);
        String url = "http://127.0.0.1:" + balance(portOfA, port(b)) + "/cometd";
        clients = new OfficialClients();

        Map<BayeuxClient, AtomicInteger> handshakes = new HashMap<>();
        Map<BayeuxClient, List<Object>> inboxes = new HashMap<>();
        for (int i = 0; i < 4; i++) {
            BayeuxClient client = clients.browser(url);
            AtomicInteger handshook = new AtomicInteger();
            List<Object> inbox = new CopyOnWriteArrayList<>();
            client.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener)
                    (channel, reply) -> {
                        if (reply.isSuccessful()) {
                            handshook.incrementAndGet();
                            client.getChannel("/chat/room").subscribe((room, message) -> inbox.add(message.getData()));
                        }
                    });
            client.handshake();
            assertTrue(client.waitFor(5000, BayeuxClient.State.CONNECTED), "connected through haproxy");
            handshakes.put(client, handshook);
            inboxes.put(client, inbox);
        }
        List<BayeuxClient> onA = handshakes.keySet().stream()
                .filter(client -> bayeux(a).getSession(client.getId()) != null).toList();
        assertTrue(!onA.isEmpty() && onA.size() < handshakes.size(), "round robin used both nodes: " + onA.size());

        // What SIGTERM does to the demo and LoadServer: drain (HAProxy reads /health 503), then stop.
        bayeux(a).drain(Duration.ofSeconds(3)).toCompletableFuture().get(20, TimeUnit.SECONDS);
        a.stop();
        for (BayeuxClient client : onA) {
            Await.until(Duration.ofSeconds(20), () -> client.isConnected()
                    && bayeux(b).getSession(client.getId()) != null, "the client handshook again, on b");
        }

        Server back = ClusterNode.start(redis.uri(), portOfA);
        nodes.add(back);
        Await.until(Duration.ofSeconds(20), () -> aNewClientLandsOn(back, url), "HAProxy sends clients to a again");

        // Two deliveries each: the held connect the first answers is sent again, through HAProxy, after a is back.
        BayeuxClient publisher = clients.browser(url);
        publisher.handshake();
        assertTrue(publisher.waitFor(5000, BayeuxClient.State.CONNECTED));
        for (String text : List.of("first", "second")) {
            publisher.getChannel("/chat/room").publish(text);
            for (BayeuxClient client : onA) {
                Await.until(Nodes.WITHIN, () -> inboxes.get(client).contains(text), "delivered: " + text);
            }
        }
        for (BayeuxClient client : onA) {
            assertEquals(2, handshakes.get(client).get(), "moved once, not pulled back by a stale cookie");
            assertTrue(bayeux(b).getSession(client.getId()) != null, "still on b");
        }
        assertEquals(onA.size(), bayeux(a).getStats().sessionsDrained(), "a drained its sessions");
    }

    /** Whether a client without cookies, sent by round robin, gets its session on {@code node}. */
    private boolean aNewClientLandsOn(Server node, String url) {
        try {
            BayeuxClient probe = clients.browser(url);
            probe.handshake();
            boolean connected = probe.waitFor(5000, BayeuxClient.State.CONNECTED);
            boolean there = connected && bayeux(node).getSession(probe.getId()) != null;
            probe.disconnect(1000);
            return there;
        } catch (Exception x) {
            throw new AssertionError(x);
        }
    }

    private static BayeuxServer bayeux(Server jetty) {
        return jetty.getBean(BayeuxServer.class);
    }

    /** Starts haproxy on the module's haproxy.cfg with its ports changed; returns the port clients use. */
    private int balance(int a, int b) throws Exception {
        int front;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            front = probe.getLocalPort();
        }
        String text = Files.readString(Path.of("haproxy.cfg"))
                .replace("127.0.0.1:8080", "127.0.0.1:" + front)
                .replace("127.0.0.1:8081", "127.0.0.1:" + a)
                .replace("127.0.0.1:8082", "127.0.0.1:" + b);
        config = Files.createTempFile("weft-haproxy", ".cfg");
        Files.writeString(config, text);
        log = Files.createTempFile("weft-haproxy", ".log");
        haproxy = new ProcessBuilder("haproxy", "-db", "-f", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        Await.until(Nodes.WITHIN, () -> accepts(front) || !haproxy.isAlive(), "haproxy listens on " + front);
        assertTrue(haproxy.isAlive(), "haproxy did not start: " + Files.readString(log));
        return front;
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }

    private Server node() throws Exception {
        Server jetty = ClusterNode.start(redis.uri(), 0);
        nodes.add(jetty);
        return jetty;
    }

    private static int port(Server jetty) {
        return ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
    }

    private static int subscribers(Server node) {
        return node.getBean(BayeuxServer.class).getChannels().stream()
                .filter(channel -> channel.getId().equals("/chat/room"))
                .mapToInt(channel -> channel.getSubscribers().size()).sum();
    }
}
