package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.client.BayeuxClient;
import io.weft.cluster.redis.RedisClusterServer;
import io.weft.cluster.redis.RedisServer;
import io.weft.server.api.ServerOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two load servers started as {@code --redis=redis://HOST:PORT} starts them (LoadServer.Settings' redis) share
 * broadcasts through a real redis-server: a client subscribed on one receives, once and in order, what a client
 * publishes on the other. And the same with {@code --redis=<the cluster's nodes> --redis-sharded} on a real Redis
 * Cluster ({@link Sharded}).
 */
@Timeout(60)
class LoadServerClusterTest {
    @RegisterExtension
    final RedisServer redis = new RedisServer();
    private final List<AutoCloseable> started = new ArrayList<>();
    private HttpClient http;
    private WebSocketClient webSocket;

    @BeforeEach
    void startClients() throws Exception {
        http = new HttpClient();
        http.setHttpCookieStore(new HttpCookieStore.Empty());
        http.start();
        webSocket = new WebSocketClient(http);
        webSocket.start();
    }

    @AfterEach
    void stopEverything() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
        webSocket.stop();
        http.stop();
    }

    private LoadServer.Running node(String redisUri, boolean sharded) throws Exception {
        LoadServer.Running node = LoadServer.start(new LoadServer.Settings("127.0.0.1", 0, "/cometd", 32,
                ServerOptions.defaults(), EnumSet.noneOf(LoadServer.Extension.class), false, redisUri, sharded),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        started.add(node);
        return node;
    }

    private BayeuxClient client(LoadServer.Running node, boolean overWebSocket) throws Exception {
        String url = "http://127.0.0.1:" + node.port() + "/cometd";
        BayeuxClient client = overWebSocket ? BayeuxClient.builder(url).webSocket(webSocket).build()
                : BayeuxClient.builder(url).longPolling(http).build();
        CompletableFuture<Message> handshake = new CompletableFuture<>();
        client.handshake(Promise.from(handshake::complete, handshake::completeExceptionally));
        handshake.get(10, TimeUnit.SECONDS);
        started.add(() -> client.disconnect(Promise.noop()));
        return client;
    }

    private static void publish(BayeuxClient client, String channel, Object data) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        client.publish(channel, data, Promise.from(reply::complete, reply::completeExceptionally));
        assertEquals(true, reply.get(10, TimeUnit.SECONDS).isSuccessful());
    }

    @Test
    void aClientOnOneNodeReceivesWhatAClientPublishesOnTheOther() throws Exception {
        crossesFromOneNodeToTheOther(redis.uri(), false);
    }

    @Nested
    class Sharded {
        @RegisterExtension
        final RedisClusterServer cluster = new RedisClusterServer();

        @Test
        void aClientOnOneNodeReceivesWhatAClientPublishesOnTheOtherThroughARedisCluster() throws Exception {
            crossesFromOneNodeToTheOther(cluster.seeds(), true);
        }
    }

    private void crossesFromOneNodeToTheOther(String redisUri, boolean sharded) throws Exception {
        LoadServer.Running first = node(redisUri, sharded);
        LoadServer.Running second = node(redisUri, sharded);
        BayeuxClient subscriber = client(first, true);
        BlockingQueue<Object> heard = new LinkedBlockingQueue<>();
        CompletableFuture<Message> subscribed = new CompletableFuture<>();
        subscriber.subscribe("/chat/room", message -> heard.add(message.getData()),
                Promise.from(subscribed::complete, subscribed::completeExceptionally));
        assertEquals(true, subscribed.get(10, TimeUnit.SECONDS).isSuccessful());
        BayeuxClient publisher = client(second, false);

        // The first node's Redis subscription is asynchronous: probe until one crosses, then the real sequence.
        Object probe = null;
        for (int attempt = 0; attempt < 100 && probe == null; attempt++) {
            publish(publisher, "/chat/room", Map.of("probe", attempt));
            probe = heard.poll(100, TimeUnit.MILLISECONDS);
        }
        assertEquals(true, probe != null, "nothing crossed from the second node to the first");
        for (int i = 0; i < 20; i++) {
            publish(publisher, "/chat/room", Map.of("n", i));
        }
        publish(publisher, "/chat/room", Map.of("marker", true));

        List<Object> received = new ArrayList<>();
        for (Object data = heard.poll(10, TimeUnit.SECONDS); data != null; data = heard.poll(10, TimeUnit.SECONDS)) {
            if (((Map<?, ?>) data).containsKey("marker")) {
                break;
            }
            if (((Map<?, ?>) data).containsKey("n")) {
                received.add(((Number) ((Map<?, ?>) data).get("n")).intValue());
            }
        }
        List<Object> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            expected.add(i);
        }
        assertEquals(expected, received, "each once, in the publisher's order, up to the marker");
    }
}
