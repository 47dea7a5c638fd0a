package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisBrokerOptionsTest {
    @Test
    void defaultsAreTheDocumentedOnes() {
        assertEquals(new RedisBrokerOptions("redis://127.0.0.1:6379", "weft:", Duration.ofSeconds(5),
                Duration.ofSeconds(10), Duration.ofSeconds(2), 100_000, false, true), RedisBrokerOptions.of("redis://127.0.0.1:6379"));
    }

    @Test
    void nonsenseIsRefusedWhenBuilt() {
        assertThrows(IllegalArgumentException.class, () -> RedisBrokerOptions.of("127.0.0.1:6379"));
        assertThrows(IllegalArgumentException.class, () -> RedisBrokerOptions.builder("redis://h")
                .commandTimeout(Duration.ZERO).build());
        assertThrows(IllegalArgumentException.class, () -> RedisBrokerOptions.builder("redis://h")
                .maxReconnectDelay(Duration.ofMillis(-1)).build());
        assertThrows(IllegalArgumentException.class, () -> RedisBrokerOptions.builder("redis://h")
                .maxPendingPublishes(0).build());
        assertThrows(NullPointerException.class, () -> RedisBrokerOptions.builder("redis://h")
                .channelPrefix(null).build());
    }

    @Test
    void severalUrisAreTheSeedsOfARedisClusterAndOnlyThat() {
        RedisBrokerOptions sharded = RedisBrokerOptions.builder("redis://10.0.0.1:7000,redis://10.0.0.2:7000")
                .sharded(true).build();
        assertEquals(List.of("redis://10.0.0.1:7000", "redis://10.0.0.2:7000"), sharded.seeds());
        assertEquals(List.of("redis://h:1"), RedisBrokerOptions.of("redis://h:1").seeds());
        assertThrows(IllegalArgumentException.class, () -> RedisBrokerOptions.of("redis://a:1,redis://b:2"),
                "several Redis servers are a cluster's seeds: plain pub/sub takes one");
        assertThrows(IllegalArgumentException.class, () -> RedisBrokerOptions.builder("redis://a:1,b:2")
                .sharded(true).build());
        assertThrows(IllegalArgumentException.class, () -> RedisBrokerOptions.builder("redis://a:1,")
                .sharded(true).build());
    }
}
