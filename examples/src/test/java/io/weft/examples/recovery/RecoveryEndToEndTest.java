package io.weft.examples.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.weft.cluster.redis.RedisBroker;
import io.weft.cluster.redis.RedisServer;
import io.weft.examples.chat.NpmPackage;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import io.weft.server.ext.AcknowledgedMessagesExtension;
import io.weft.server.spi.Broker;
import io.weft.server.testing.Await;
import io.weft.transport.websocket.WeftJetty;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Recovery end to end (docs/protocol.md, "History and recovery"), for every client that does it: Weft's Java client,
 * weft.js and the official CometD JavaScript client with weft-recovery.js (both in Node), over websocket and
 * long-polling, against a Weft server on embedded Jetty whose channels under {@code /recovery/} keep history. Each
 * client subscribes through a relay; the test cuts the relay for longer than the session lives (the server forgets
 * the session, as when a node is lost), publishes meanwhile, and restores it: the client handshakes again, subscribes
 * again with its position, and gets exactly what it missed, in order, once, told {@code recovered: true}; or, when
 * more was missed than the channel keeps, is told {@code recovered: false} and goes on with what is new. And across
 * nodes: two servers keeping the history in a real redis-server, the client's node dies, the relay (a balancer
 * now) sends it to the other, and it recovers there what was published while it moved.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class RecoveryEndToEndTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String KEPT = "/recovery/kept";
    private static final String TRIMMED = "/recovery/trimmed";

    /** A client and its transport. */
    enum Client {
        JAVA_WEBSOCKET, JAVA_LONG_POLLING, WEFT_JS_WEBSOCKET, WEFT_JS_LONG_POLLING, COMETD_WEBSOCKET,
        COMETD_LONG_POLLING;

        boolean inNode() {
            return !name().startsWith("JAVA");
        }

        String transport() {
            return name().endsWith("WEBSOCKET") ? "websocket" : "long-polling";
        }
    }

    private static Path modules;

    @RegisterExtension
    final RedisServer redis = new RedisServer();

    /** One Weft server on embedded Jetty; with a Redis URI, its history and pub/sub go through that Redis. */
    private record Node(BayeuxServer bayeux, Server jetty, int port) {
        static Node start(String redisUri) throws Exception {
            BayeuxServer bayeux = BayeuxServer.create(ServerOptions.builder()
                    .set("history", KEPT + ":size=100;" + TRIMMED + ":size=3")
                    .timeout(1_000) // a held connect is answered within a second,
                    .maxInterval(1_000) // and a session whose client is gone is forgotten a second after
                    .build());
            bayeux.addExtension(new AcknowledgedMessagesExtension());
            if (redisUri != null) {
                Broker.install(bayeux, RedisBroker.create(redisUri));
            }
            Server jetty = new Server();
            ServerConnector connector = new ServerConnector(jetty);
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            jetty.addConnector(connector);
            WeftJetty.mount(jetty, bayeux, "/cometd");
            jetty.start();
            return new Node(bayeux, jetty, connector.getLocalPort());
        }

        void stop() throws Exception {
            jetty.stop();
            bayeux.close();
        }
    }

    private final List<Node> nodes = new ArrayList<>();
    private BayeuxServer bayeux;
    private CuttableRelay relay;
    private HttpClient http;
    private WebSocketClient webSocket;
    private final List<AutoCloseable> subscribers = new ArrayList<>();

    @BeforeAll
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    static void installNodeClients() throws Exception {
        if (nodeInstalled()) {
            Path target = Path.of(System.getProperty("weft.examples.target", "target"));
            modules = NpmPackage.install(target.resolve("npm-cometd-node"), NpmPackage.COMETD,
                    NpmPackage.COMETD_NODE);
        }
    }

    @BeforeEach
    void start() throws Exception {
        Node node = node(null);
        bayeux = node.bayeux();
        relay = new CuttableRelay(node.port());
        http = new HttpClient();
        http.setHttpCookieStore(new HttpCookieStore.Empty());
        http.start();
        webSocket = new WebSocketClient(http);
        webSocket.start();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable subscriber : subscribers) {
            subscriber.close();
        }
        webSocket.stop();
        http.stop();
        relay.close();
        for (Node node : nodes) {
            node.stop();
        }
    }

    private Node node(String redisUri) throws Exception {
        Node node = Node.start(redisUri);
        nodes.add(node);
        return node;
    }

    static Stream<Arguments> clientsWithAndWithoutAcks() {
        return Stream.of(Client.values()).flatMap(client -> Stream.of(Arguments.of(client, false),
                Arguments.of(client, true)));
    }

    @ParameterizedTest(name = "{0}, ack {1}")
    @MethodSource("clientsWithAndWithoutAcks")
    void aClientWhoseSessionWasLostGetsWhatItMissedInOrderOnce(Client client, boolean ack) throws Exception {
        Subscriber subscriber = subscribe(client, KEPT, ack);
        publish(KEPT, 1, 3);
        awaitReceived(subscriber, 1, 3);

        String lost = subscriber.clientId();
        relay.cut();
        publish(KEPT, 4, 6); // to a session still there: queued, or written to a connection that is gone
        Await.until(WAIT, () -> bayeux.getSession(lost) == null, "the server forgot the session");
        publish(KEPT, 7, 8);
        relay.restore();

        await(subscriber, () -> !subscriber.recoveries().isEmpty() && subscriber.received().contains(8L),
                "recovered up to 8");
        publish(KEPT, 9, 9);
        awaitReceived(subscriber, 1, 9);

        assertEquals(List.of(new Subscriber.Outcome(KEPT, true)), subscriber.recoveries(), subscriber.log());
        assertEquals(numbers(1, 9), subscriber.received(), "each message once, in order: " + subscriber.log());
        assertNotEquals(1, subscriber.handshakes(), "a new session: " + subscriber.log());
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aClientThatMissedMoreThanTheChannelKeepsIsToldSo(Client client) throws Exception {
        Subscriber subscriber = subscribe(client, TRIMMED, false);
        publish(TRIMMED, 1, 3);
        awaitReceived(subscriber, 1, 3);

        String lost = subscriber.clientId();
        relay.cut();
        publish(TRIMMED, 4, 6);
        Await.until(WAIT, () -> bayeux.getSession(lost) == null, "the server forgot the session");
        publish(TRIMMED, 7, 10); // 4 to 10 missed; the channel keeps 8 to 10
        relay.restore();

        await(subscriber, () -> !subscriber.recoveries().isEmpty(), "the recovery's outcome");
        publish(TRIMMED, 11, 11);
        await(subscriber, () -> subscriber.received().contains(11L), "11");

        assertEquals(List.of(new Subscriber.Outcome(TRIMMED, false)), subscriber.recoveries(), subscriber.log());
        assertEquals(List.of(1L, 2L, 3L, 11L), subscriber.received(), "nothing of the gap: " + subscriber.log());
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aClientWhoseNodeDiedRecoversOnAnotherNodeFromRedis(Client client) throws Exception {
        Node a = node(redis.uri());
        Node b = node(redis.uri());
        relay.retarget(a.port());
        Subscriber subscriber = subscribe(client, KEPT, false);
        bayeux = b.bayeux(); // the publisher: the node that stays
        Await.until(WAIT, () -> a.bayeux().getSession(subscriber.clientId()) != null, "the subscriber is on a");
        publish(KEPT, 1, 3); // through Redis to a: each kept there with its position
        awaitReceived(subscriber, 1, 3);

        relay.cut();
        a.stop(); // a dies with the subscriber's session
        publish(KEPT, 4, 8);
        relay.retarget(b.port()); // the balancer sends it to the node left
        relay.restore();

        await(subscriber, () -> !subscriber.recoveries().isEmpty() && subscriber.received().contains(8L),
                "recovered up to 8 on b");
        publish(KEPT, 9, 9);
        awaitReceived(subscriber, 1, 9);

        assertEquals(List.of(new Subscriber.Outcome(KEPT, true)), subscriber.recoveries(), subscriber.log());
        assertEquals(numbers(1, 9), subscriber.received(), "each message once, in order: " + subscriber.log());
        assertNotEquals(1, subscriber.handshakes(), "a new session, on b (a is gone): " + subscriber.log());
    }

    /** A subscriber of {@code channel} through the relay, once subscribed. */
    private Subscriber subscribe(Client client, String channel, boolean ack) throws Exception {
        String url = "http://127.0.0.1:" + relay.port() + "/cometd";
        Subscriber subscriber;
        if (client.inNode()) {
            Assumptions.assumeTrue(modules != null, "node is not installed: the JavaScript clients cannot run");
            Path script = Path.of("src/test/node/recovery-client.mjs");
            subscriber = Subscriber.node(client.name().startsWith("COMETD") ? "cometd" : "weft", url, channel,
                    client.transport(), ack, script, Map.of(
                            "WS_MODULE", fileUrl(modules.resolve("ws/wrapper.mjs")),
                            "COMETD_MODULE", fileUrl(modules.resolve("cometd/cometd.js")),
                            "COMETD_NODE_MODULE", fileUrl(modules.resolve("cometd-nodejs-client/cometd-nodejs-client.js"))));
        } else {
            subscriber = Subscriber.java(url, channel, client.transport(), ack, http, webSocket);
        }
        subscribers.add(subscriber);
        await(subscriber, () -> subscriber.clientId() != null, "subscribed");
        return subscriber;
    }

    private void publish(String channel, long from, long to) {
        ServerChannel target = bayeux.createChannelIfAbsent(channel);
        for (long n = from; n <= to; n++) {
            target.publish(null, Map.of("n", n));
        }
    }

    private static void awaitReceived(Subscriber subscriber, long from, long to) throws InterruptedException {
        await(subscriber, () -> subscriber.received().equals(numbers(from, to)), "received " + from + " to " + to);
    }

    /** Waits for {@code condition}; a failure says what the subscriber went through. */
    private static void await(Subscriber subscriber, BooleanSupplier condition, String what)
            throws InterruptedException {
        try {
            Await.until(WAIT, condition, what);
        } catch (AssertionError x) {
            throw new AssertionError(x.getMessage() + "; the subscriber: " + subscriber.log(), x);
        }
    }

    private static List<Long> numbers(long from, long to) {
        return LongStream.rangeClosed(from, to).boxed().toList();
    }

    private static String fileUrl(Path path) {
        return path.toAbsolutePath().toUri().toString();
    }

    private static boolean nodeInstalled() {
        try {
            Process node = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            return node.waitFor(20, TimeUnit.SECONDS) && node.exitValue() == 0;
        } catch (IOException | InterruptedException x) {
            return false;
        }
    }
}
