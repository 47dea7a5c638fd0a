package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Broker;
import io.weft.server.spi.History;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.Await;
import io.weft.server.testing.SocketClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two Weft servers with the engine's history on {@code /hx/**} and a {@link RedisBroker} keeping it in Redis: the
 * subscribers of both nodes get each publication once, in order, carrying its position, and a client that subscribes
 * on the other node with the position it had gets what it missed from Redis.
 */
@Timeout(30)
class RedisHistoryEngineTest {
    @RegisterExtension
    final RedisServer redis = new RedisServer();
    private final List<BayeuxServer> servers = new ArrayList<>();

    @AfterEach
    void close() {
        servers.forEach(BayeuxServer::close);
    }

    private InMemoryTransport node() {
        BayeuxServer server = BayeuxServer.create(ServerOptions.builder().set("history", "/hx/**:size=100,ttl=60s")
                .build());
        servers.add(server);
        Broker.install(server, RedisBroker.create(RedisBrokerOptions.of(redis.uri())));
        return InMemoryTransport.websocket(server);
    }

    private static SocketClient client(InMemoryTransport node, String name) {
        SocketClient client = new SocketClient(node, name);
        client.handshake();
        client.connect();
        return client;
    }

    @Test
    void subscribersOfBothNodesGetEachPublicationOnceWithItsPositionAndAMovedClientRecoversOnTheOtherNode()
            throws Exception {
        InMemoryTransport a = node();
        InMemoryTransport b = node();
        SocketClient onA = client(a, "a1");
        SocketClient onB = client(b, "b1");
        onA.subscribe("/hx/room");
        onB.subscribe("/hx/room");
        Await.until(HistoryNode.WITHIN, () -> numsub("weft:/hx/room"), n -> n == 2, "both nodes subscribe in Redis");
        SocketClient publisher = client(a, "p");
        for (int i = 1; i <= 5; i++) {
            publisher.publish("/hx/room", "\"m" + i + "\"");
        }

        List<Map<String, Object>> gotA = broadcasts(onA, 5);
        List<Map<String, Object>> gotB = broadcasts(onB, 5);
        assertEquals(List.of("m1", "m2", "m3", "m4", "m5"), gotA.stream().map(m -> m.get("data")).toList());
        assertEquals(gotA, gotB, "the same messages, positions included, on both nodes");
        List<History.Position> positions = gotA.stream().map(m -> History.Position.from(
                ((Map<?, ?>) m.get("ext")).get(History.EXT))).toList();
        String epoch = positions.get(0).epoch();
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), positions.stream().map(History.Position::offset).toList());

        // The client of a had position 2 when its node went; a new session on b comes back with it.
        SocketClient moved = client(b, "moved");
        moved.send("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/hx/room\",\"clientId\":\"" + moved.clientId()
                + "\",\"ext\":{\"recover\":{\"/hx/room\":{\"epoch\":\"" + epoch + "\",\"offset\":2}}}}]");
        List<Map<String, Object>> seen = new ArrayList<>();
        Await.until(HistoryNode.WITHIN, () -> {
            seen.addAll(moved.drain());
            return seen.stream().filter(m -> "/hx/room".equals(m.get("channel"))).count() >= 3
                    && seen.stream().anyMatch(m -> "/meta/subscribe".equals(m.get("channel")));
        }, "the subscribe reply and the three missed publications");
        assertEquals(List.of("m3", "m4", "m5"), seen.stream().filter(m -> "/hx/room".equals(m.get("channel")))
                .map(m -> m.get("data")).toList(), "what the client missed, from Redis, once, in order");
        Map<?, ?> reply = seen.stream().filter(m -> "/meta/subscribe".equals(m.get("channel"))).findFirst()
                .orElseThrow();
        Map<?, ?> recovered = (Map<?, ?>) ((Map<?, ?>) ((Map<?, ?>) reply.get("ext")).get(History.RECOVER))
                .get("/hx/room");
        assertEquals(true, recovered.get(History.RECOVERED), reply.toString());
        assertEquals(epoch, recovered.get(History.EPOCH));
    }

    private static List<Map<String, Object>> broadcasts(SocketClient client, int count) throws InterruptedException {
        List<Map<String, Object>> got = new ArrayList<>();
        Await.until(HistoryNode.WITHIN, () -> {
            for (Map<String, Object> message : client.drain()) {
                if ("/hx/room".equals(message.get("channel")) && !message.containsKey("successful")) {
                    got.add(message);
                }
            }
            return got.size() >= count;
        }, count + " broadcasts");
        return got;
    }

    private int numsub(String name) {
        try {
            return Integer.parseInt(redis.command("PUBSUB", "NUMSUB", name).get(1));
        } catch (Exception x) {
            return -1;
        }
    }
}
