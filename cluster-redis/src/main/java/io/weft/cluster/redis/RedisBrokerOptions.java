package io.weft.cluster.redis;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link RedisBroker} reaches Redis, with every default in one place. Values are checked when built: nonsense is
 * refused with {@link IllegalArgumentException} at start-up.
 *
 * @param uri the Redis server, as Lettuce reads it: {@code redis://host:port}, {@code redis://:password@host:port/0},
 *     {@code rediss://} for TLS. Required.
 * @param channelPrefix put before each Bayeux channel to name its Redis channel (default {@code weft:}: the Bayeux
 *     channel {@code /chat/room} is the Redis channel {@code weft:/chat/room}). Nodes of one cluster use the same;
 *     clusters sharing a Redis use different ones.
 * @param commandTimeout how long a publish may wait for Redis's reply before it counts as failed (default 5 s).
 * @param connectTimeout how long {@link RedisBroker#start} waits for each of its two connections (default 10 s).
 * @param maxReconnectDelay the longest pause between two attempts to reconnect to Redis while it is away (default
 *     2 s; the pauses grow exponentially from 1 ms up to it). It bounds how long cross-node delivery stays off once
 *     Redis is back.
 * @param maxPendingPublishes how many publishes may be sent and not yet answered at once (default 100000); past it a
 *     publish fails at once and is counted, rather than queueing without bound behind a slow Redis (with
 *     {@code sharded}, per shard).
 * @param sharded whether {@code uri} is a Redis Cluster (7 or later), used with sharded pub/sub: SPUBLISH to the shard
 *     that owns each channel's slot, SSUBSCRIBE there (default false: plain PUBLISH / SUBSCRIBE / PSUBSCRIBE on one
 *     Redis, or on a cluster, where every node carries every message). {@code uri} may then name several of the
 *     cluster's nodes, comma-separated ({@code redis://10.0.0.1:6379,redis://10.0.0.2:6379}): the topology is read
 *     from the first that answers.
 * @param history whether the broker keeps the history of channels with a history rule in Redis, for the whole cluster
 *     ({@link RedisBroker#keepsHistory}; default true): each publish on such a channel is one script that numbers it,
 *     appends it to the channel's Redis Stream and publishes it. Off: each node keeps its own history in memory.
 */
public record RedisBrokerOptions(String uri, String channelPrefix, Duration commandTimeout, Duration connectTimeout,
        Duration maxReconnectDelay, int maxPendingPublishes, boolean sharded, boolean history) {

    public RedisBrokerOptions {
        Objects.requireNonNull(uri, "uri");
        String[] seeds = uri.split(",", -1);
        if (seeds.length > 1 && !sharded) {
            throw new IllegalArgumentException("several Redis URIs are the seeds of a Redis Cluster: set sharded: "
                    + uri);
        }
        for (String seed : seeds) {
            checkUri(seed);
        }
        Objects.requireNonNull(channelPrefix, "channelPrefix");
        positive(commandTimeout, "commandTimeout");
        positive(connectTimeout, "connectTimeout");
        positive(maxReconnectDelay, "maxReconnectDelay");
        if (maxPendingPublishes < 1) {
            throw new IllegalArgumentException("maxPendingPublishes must be at least 1: " + maxPendingPublishes);
        }
    }

    /** The Redis URIs in {@link #uri}: one, or with {@link #sharded} the cluster nodes it names. */
    public List<String> seeds() {
        return List.of(uri.split(","));
    }

    private static void checkUri(String uri) {
        if (!uri.startsWith("redis://") && !uri.startsWith("rediss://") && !uri.startsWith("redis-socket://")) {
            throw new IllegalArgumentException("uri must start with redis://, rediss:// or redis-socket://: " + uri);
        }
        try {
            RedisURI.create(uri);
        } catch (RuntimeException x) {
            throw new IllegalArgumentException("not a Redis URI: " + uri + ": " + x.getMessage(), x);
        }
    }

    /** The defaults, for the Redis at {@code uri}. */
    public static RedisBrokerOptions of(String uri) {
        return builder(uri).build();
    }

    public static Builder builder(String uri) {
        return new Builder(uri);
    }

    private static void positive(Duration duration, String name) {
        Objects.requireNonNull(duration, name);
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + duration);
        }
    }

    /** Options from the defaults, changed one at a time. */
    public static final class Builder {
        private final String uri;
        private String channelPrefix = "weft:";
        private Duration commandTimeout = Duration.ofSeconds(5);
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration maxReconnectDelay = Duration.ofSeconds(2);
        private int maxPendingPublishes = 100_000;
        private boolean sharded;
        private boolean history = true;

        private Builder(String uri) {
            this.uri = uri;
        }

        public Builder channelPrefix(String channelPrefix) {
            this.channelPrefix = channelPrefix;
            return this;
        }

        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = commandTimeout;
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        public Builder maxReconnectDelay(Duration maxReconnectDelay) {
            this.maxReconnectDelay = maxReconnectDelay;
            return this;
        }

        public Builder maxPendingPublishes(int maxPendingPublishes) {
            this.maxPendingPublishes = maxPendingPublishes;
            return this;
        }

        public Builder sharded(boolean sharded) {
            this.sharded = sharded;
            return this;
        }

        public Builder history(boolean history) {
            this.history = history;
            return this;
        }

        public RedisBrokerOptions build() {
            return new RedisBrokerOptions(uri, channelPrefix, commandTimeout, connectTimeout, maxReconnectDelay,
                    maxPendingPublishes, sharded, history);
        }
    }
}
