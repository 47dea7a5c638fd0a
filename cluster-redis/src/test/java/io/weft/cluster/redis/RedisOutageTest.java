package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.cluster.redis.Nodes.Client;
import io.weft.cluster.redis.Nodes.Node;
import io.weft.cluster.redis.RedisClusterTest.Redis;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Broker;
import io.weft.server.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redis killed mid-run and started again on the same port: each node's local delivery goes on meanwhile, what is
 * published meanwhile is counted as failed (and logged in one line), and cross-node delivery resumes by itself with
 * every subscription restored, including those made and dropped while Redis was away.
 */
@Timeout(30)
class RedisOutageTest {
    @RegisterExtension
    final RedisServer redis = new RedisServer();
    @RegisterExtension
    final CapturedLog log = new CapturedLog();
    private Nodes nodes;

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
    }

    @Test
    void whileRedisIsAwayLocalDeliveryGoesOnAndCrossNodeDeliveryResumesByItself() throws Exception {
        nodes = new Nodes(redis.uri());
        Node a = nodes.start("a");
        Node b = nodes.start("b");
        Client onA = a.client("1", "/room");
        Client onB = b.client("2", "/room", "/gone");
        Client publisher = a.client("p");
        Redis.awaitSubscribed(redis, 3, 0);
        publisher.publish("/room", "\"before\"");
        onB.await(1, "b got what a published");

        redis.kill();
        Await.until(Nodes.WITHIN, () -> !a.broker().stats().connected() && !b.broker().stats().connected(),
                "both brokers saw Redis go");
        int during = 10;
        for (int i = 0; i < during; i++) {
            publisher.publish("/room", "\"during " + i + "\"");
        }
        assertEquals(1 + during, onA.await(1 + during, "a's own subscriber got everything a published").size());
        Await.until(Nodes.WITHIN, () -> a.broker().stats().publishFailures() == during,
                "each publish meanwhile counted as failed");
        Client late = b.client("3", "/late");
        onB.socket.send("[{\"channel\":\"/meta/unsubscribe\",\"subscription\":\"/gone\",\"clientId\":\""
                + onB.socket.clientId() + "\"}]");

        redis.restart();
        // Lettuce first subscribes again to what Redis had confirmed (b: /room and /gone), then sends what was queued.
        Await.until(Nodes.WITHIN, () -> numsub("weft:/room", "weft:/late", "weft:/gone"),
                seen -> seen.equals(List.of("weft:/room", "2", "weft:/late", "1", "weft:/gone", "0")),
                "Redis has what the nodes' sessions need now, changes made while it was away included");
        Redis.awaitSubscribed(redis, 3, 0);
        Await.until(Nodes.WITHIN, () -> a.broker().stats().connected() && b.broker().stats().connected(),
                "both brokers reconnected");
        publisher.publish("/room", "\"after\"");
        publisher.publish("/late", "\"late\"");

        assertEquals(List.of("before", "after"), dataOf(onB.await(2, "b gets a's publishes again")),
                "what was published while Redis was away never reaches b, and nothing arrives twice");
        assertEquals(List.of("late"), dataOf(late.await(1, "a subscription made while Redis was away works")));
        RedisBroker.Stats stats = a.broker().stats();
        assertEquals(during, stats.publishFailures());
        assertTrue(stats.reconnects() >= 2, "both of a's connections came back: " + stats);
        assertTrue(b.broker().stats().reconnects() >= 2, b.broker().stats().toString());

        List<String> lines = log.lines();
        assertEquals(1, lines.stream().filter(line -> line.startsWith("INFO A publish to Redis")).count(),
                "ten failed publishes, one line: " + lines);
        assertTrue(lines.stream().anyMatch(line -> line.contains("publish connection of node " + a.broker().nodeId()
                + " is back") && line.contains(during + " publishes failed since it was last up")), lines.toString());
    }

    @Test
    void aNodeThatCannotReachRedisWhenItStartsFailsNamingTheAddress() throws Exception {
        redis.kill();
        try (BayeuxServer server = BayeuxServer.create(ServerOptions.defaults())) {
            RedisBroker broker = RedisBroker.create(RedisBrokerOptions.builder(redis.uri())
                    .connectTimeout(Duration.ofSeconds(2)).build());
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> Broker.install(server, broker));
            assertTrue(refused.getMessage().contains("127.0.0.1:" + redis.port()), refused.getMessage());
        }
    }

    private List<String> numsub(String... channels) {
        List<String> command = new ArrayList<>(List.of("PUBSUB", "NUMSUB"));
        command.addAll(List.of(channels));
        try {
            return redis.command(command.toArray(String[]::new));
        } catch (java.io.IOException x) {
            return List.of(x.toString());
        }
    }

    private static List<Object> dataOf(List<java.util.Map<String, Object>> messages) {
        return messages.stream().map(message -> message.get("data")).toList();
    }
}
