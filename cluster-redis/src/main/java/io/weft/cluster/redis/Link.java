package io.weft.cluster.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import java.net.SocketAddress;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connections of one of a broker's two Redis clients (publish, pub/sub), as the client reports them: the lines an
 * operator sees when Redis comes and goes. Plain pub/sub has one connection per client; sharded pub/sub has one per
 * shard (and Lettuce's short-lived topology connections, which close themselves and are forgotten here).
 */
final class Link implements RedisConnectionStateListener {
    private static final Logger LOG = LoggerFactory.getLogger(RedisBroker.class);

    private final String name;
    private final String nodeId;
    private final Counters counters;
    private final BooleanSupplier stopped;
    private final Supplier<Subscriptions> subscriptions;
    private final Runnable whenBack;
    /** Each connection seen and its state. Guarded by this. */
    private final Map<RedisChannelHandler<?, ?>, State> connections = new IdentityHashMap<>();
    private volatile boolean up;

    /**
     * @param subscriptions null for the publish client; the pub/sub client's subscriptions, for its log lines
     * @param whenBack run when a connection of this client is back after a loss
     */
    Link(String name, String nodeId, Counters counters, BooleanSupplier stopped, Supplier<Subscriptions> subscriptions,
            Runnable whenBack) {
        this.name = name;
        this.nodeId = nodeId;
        this.counters = counters;
        this.stopped = stopped;
        this.subscriptions = subscriptions;
        this.whenBack = whenBack;
    }

    /** Whether every connection of this client is up. */
    boolean up() {
        return up;
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
        long away;
        long failedSince;
        synchronized (this) {
            State state = connections.get(connection);
            long failures = counters.publishFailures.sum();
            if (state == null) {
                connections.put(connection, new State(failures));
                up = allUp();
                return;
            }
            state.up = true;
            up = allUp();
            away = (System.nanoTime() - state.lostAt) / 1_000_000;
            failedSince = failures - state.failuresWhenUp;
            state.failuresWhenUp = failures;
        }
        counters.reconnects.increment();
        Subscriptions subscribed = subscriptions == null ? null : subscriptions.get();
        if (subscribed == null) {
            LOG.info("Redis {} connection of node {} is back ({}) after {} ms; {} publishes failed since it was last up",
                    name, nodeId, address, away, failedSince);
        } else {
            LOG.info("Redis {} connection of node {} is back ({}) after {} ms; subscribing again to {} channels and {} "
                    + "patterns", name, nodeId, address, away, subscribed.channels(), subscribed.patterns());
        }
        whenBack.run();
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
        synchronized (this) {
            State state = connections.get(connection);
            if (state == null) {
                return;
            }
            if (connection.isClosed()) { // closed on purpose (a topology connection, or ours at stop): not a loss
                connections.remove(connection);
                up = allUp();
                return;
            }
            state.up = false;
            state.lostAt = System.nanoTime();
            up = false;
        }
        if (!stopped.getAsBoolean()) {
            LOG.info("Redis {} connection of node {} lost: local delivery goes on, cross-node delivery waits for "
                    + "Lettuce to reconnect", name, nodeId);
        }
    }

    private boolean allUp() {
        if (connections.isEmpty()) {
            return false;
        }
        for (State state : connections.values()) {
            if (!state.up) {
                return false;
            }
        }
        return true;
    }

    private static final class State {
        boolean up = true;
        long lostAt;
        /** Failed publishes when this connection last came up: a publish may fail before its loss is reported. */
        long failuresWhenUp;

        State(long failuresWhenUp) {
            this.failuresWhenUp = failuresWhenUp;
        }
    }
}
