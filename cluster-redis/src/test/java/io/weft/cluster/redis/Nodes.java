package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.Service;
import io.weft.server.spi.Broker;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.Await;
import io.weft.server.testing.SocketClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Weft servers of one test, each with a {@link RedisBroker} on the test's Redis (or Redis Cluster, sharded), over
 * in-memory websockets.
 */
final class Nodes implements AutoCloseable {
    static final Duration WITHIN = Duration.ofSeconds(10);

    private final String redisUri;
    private final boolean sharded;
    private final List<BayeuxServer> servers = new ArrayList<>();

    Nodes(String redisUri) {
        this(redisUri, false);
    }

    /** Nodes on a Redis Cluster with sharded pub/sub if {@code sharded}; {@code redisUri} then lists its seeds. */
    Nodes(String redisUri, boolean sharded) {
        this.redisUri = redisUri;
        this.sharded = sharded;
    }

    /** Options for tests: reconnect attempts at most 100 ms apart, so a restarted Redis is found soon. */
    RedisBrokerOptions options() {
        return RedisBrokerOptions.builder(redisUri).maxReconnectDelay(Duration.ofMillis(100)).sharded(sharded).build();
    }

    Node start(String name) {
        // Root wildcards allowed: the tests subscribe to /** to see every channel cross the cluster.
        BayeuxServer server = BayeuxServer.create(ServerOptions.builder().clientRootWildcards(true).build());
        servers.add(server);
        RedisBroker broker = RedisBroker.create(options());
        Broker.install(server, broker);
        return new Node(name, server, broker, InMemoryTransport.websocket(server));
    }

    /** Waits until Redis has what a test's sessions subscribed to. */
    interface RedisCheck {
        void await() throws Exception;
    }

    /**
     * Starts nodes a and b, and shows that neither a service channel nor a {@code deliver()} crosses from a to b, whose
     * session subscribes to {@code /echo}, {@code /service/**} and {@code /marker}: only the marker, published after,
     * goes through Redis. {@code subscribed} waits until Redis has {@code /echo} from both nodes and {@code /marker}.
     */
    void assertServiceChannelsAndDeliveriesStayOnTheirNode(RedisCheck subscribed) throws Exception {
        Node a = start("a");
        Node b = start("b");
        a.server().addService("/service/echo", Service.of((session, message) -> {
            session.deliver(null, "/echo", message.getData());
            return null;
        }));
        Client caller = a.client("1", "/echo");
        Client elsewhere = b.client("2", "/echo", "/service/**", "/marker");
        subscribed.await();

        caller.publish("/service/echo", "\"hi\"");
        caller.publish("/marker", "\"after\"");

        assertEquals(List.of("hi"), caller.await(1, "the echo").stream().map(m -> m.get("data")).toList());
        elsewhere.await(1, "the marker, published after the echo");
        assertEquals(List.of("after"), elsewhere.data(), "neither the service message nor the echo crossed");
        // Replies come in order: once the marker's is in, any earlier publish's would be too.
        Await.until(WITHIN, () -> a.broker().stats().published() >= 1, "Redis took the marker's publish");
        assertEquals(1, a.broker().stats().published(), "only the marker went to Redis");
    }

    @Override
    public void close() {
        servers.forEach(BayeuxServer::close);
    }

    record Node(String name, BayeuxServer server, RedisBroker broker, InMemoryTransport websocket) {
        /** A connected client of this node, subscribed to {@code channels} (each subscription answered). */
        Client client(String browser, String... channels) {
            SocketClient socket = new SocketClient(websocket, name + "-" + browser);
            socket.handshake();
            socket.connect();
            for (String channel : channels) {
                socket.subscribe(channel);
            }
            return new Client(socket);
        }
    }

    /** A client and what it has been sent: its broadcasts (channel and data) in order, replies apart. */
    static final class Client {
        final SocketClient socket;
        private final List<Map<String, Object>> broadcasts = new ArrayList<>();

        Client(SocketClient socket) {
            this.socket = socket;
        }

        void publish(String channel, String dataJson) {
            socket.publish(channel, dataJson);
        }

        /** The broadcasts received so far. */
        List<Map<String, Object>> broadcasts() {
            for (Map<String, Object> message : socket.drain()) {
                String channel = String.valueOf(message.get("channel"));
                if (!channel.startsWith("/meta/") && !message.containsKey("successful")) {
                    broadcasts.add(message);
                }
            }
            return broadcasts;
        }

        /** The data of the broadcasts received so far. */
        List<Object> data() {
            return broadcasts().stream().map(message -> message.get("data")).toList();
        }

        /** Waits until {@code count} broadcasts have come, and returns them. */
        List<Map<String, Object>> await(int count, String what) throws InterruptedException {
            Supplier<List<Map<String, Object>>> seen = this::broadcasts;
            return Await.until(WITHIN, seen, list -> list.size() >= count, what + " (" + count + " broadcasts)");
        }
    }
}
