package io.weft.cluster.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.pubsub.api.async.RedisClusterPubSubAsyncCommands;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
import io.weft.bayeux.ChannelId;
import io.weft.server.spi.QuietLog;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * What this node's sessions want from Redis, and the commands that ask for it: SUBSCRIBE / PSUBSCRIBE on the one
 * pub/sub connection (plain pub/sub), or SSUBSCRIBE routed to the shard that owns each name (sharded pub/sub). A Redis
 * name wanted by several Bayeux subscriptions ({@code /a/*} and {@code /a/**} share the pattern {@code weft:/a/*} in
 * plain pub/sub, and the shard channel {@code weft:/a/*} in sharded pub/sub) is subscribed while any of them is wanted.
 *
 * <p>Commands are sent asynchronously, in the order of the calls: while Redis is away Lettuce queues them, and when it
 * reconnects it first subscribes again to what Redis had confirmed before the loss, then sends the queued commands,
 * so Redis ends with what is wanted now. Lettuce's own resubscription of shard channels sends them all in one
 * SSUBSCRIBE, which Redis refuses when they span slots, so in sharded mode {@link #subscribeAgain} sends one per name.
 * {@link #add} and {@link #remove} are called on the engine's threads (ordered per channel by the engine);
 * {@link #wants} and {@link #subscribeAgain(String)} on the connections' threads.
 */
final class Subscriptions {
    private static final QuietLog FAILURES = new QuietLog(Subscriptions.class, "Redis subscription commands that failed");

    private final RedisNames names;
    private final ShardNames shardNames;
    private final RedisPubSubAsyncCommands<String, byte[]> commands;
    /** Sharded: where a refused SSUBSCRIBE is tried again from, and after how long. */
    private final ScheduledExecutorService retries;
    private final Duration retryAfter;
    /** Counts each (un)subscribe command Redis refused or lost. */
    private final LongAdder failures;
    /** Every channel and pattern a local session subscribes to, for {@link #wants}. */
    private final Set<ChannelId> wanted = ConcurrentHashMap.newKeySet();
    /** The Bayeux channels and patterns behind each Redis name. Guarded by this. */
    private final Map<String, Set<ChannelId>> behind = new HashMap<>();
    /** Subscribe commands sent and not answered yet: a history read waits for them ({@link #settled}). */
    private final Set<CompletableFuture<?>> unanswered = ConcurrentHashMap.newKeySet();
    private int channels;
    private int patterns;
    private volatile boolean closed;

    private Subscriptions(RedisNames names, ShardNames shardNames, RedisPubSubAsyncCommands<String, byte[]> commands,
            ScheduledExecutorService retries, Duration retryAfter, LongAdder failures) {
        this.names = names;
        this.shardNames = shardNames;
        this.commands = commands;
        this.retries = retries;
        this.retryAfter = retryAfter;
        this.failures = failures;
    }

    /** Channels and patterns of plain pub/sub, on one connection. */
    static Subscriptions plain(RedisNames names, RedisPubSubAsyncCommands<String, byte[]> commands,
            LongAdder failures) {
        return new Subscriptions(names, null, commands, null, null, failures);
    }

    /**
     * Shard channels of sharded pub/sub, each subscribed on the connection to the shard that owns its slot. An
     * SSUBSCRIBE that fails (no shard serves the slot, or none is known for it yet; a shard refusing it while the
     * cluster changes) is sent again {@code retryAfter} later, from {@code retries}, for as long as the name is
     * wanted: Lettuce reads the topology again meanwhile.
     */
    static Subscriptions sharded(ShardNames names, RedisClusterPubSubAsyncCommands<String, byte[]> commands,
            ScheduledExecutorService retries, Duration retryAfter, LongAdder failures) {
        return new Subscriptions(null, names, commands, retries, retryAfter, failures);
    }

    synchronized void add(ChannelId channel) {
        if (!wanted.add(channel)) {
            return;
        }
        for (String name : redisNames(channel)) {
            Set<ChannelId> those = behind.computeIfAbsent(name, n -> new HashSet<>(2));
            if (those.isEmpty()) {
                subscribe(name, pattern(channel));
            }
            those.add(channel);
        }
    }

    synchronized void remove(ChannelId channel) {
        if (!wanted.remove(channel)) {
            return;
        }
        for (String name : redisNames(channel)) {
            Set<ChannelId> those = behind.get(name);
            those.remove(channel);
            if (those.isEmpty()) {
                behind.remove(name);
                unsubscribe(name, pattern(channel));
            }
        }
    }

    /**
     * Sharded pub/sub: SSUBSCRIBE again, one name per command, every shard channel wanted now (after a shard's
     * connection came back, or a shard dropped a channel whose slot moved). Names a shard has already are no change.
     */
    synchronized void subscribeAgain() {
        if (closed) {
            return;
        }
        for (String name : behind.keySet()) {
            ssubscribe(name);
        }
    }

    /** Sharded pub/sub: SSUBSCRIBE {@code name} again if it is still wanted (a shard dropped it: its slot moved). */
    synchronized boolean subscribeAgain(String name) {
        if (closed || !behind.containsKey(name)) {
            return false;
        }
        ssubscribe(name);
        return true;
    }

    /**
     * Completes when every subscribe command sent so far has been answered (confirmed or refused). A history read
     * waits for it, so that the position it gives a new subscriber is one from which this node's subscription
     * delivers every later publication: read before Redis confirmed the subscription, a publication between the
     * read and the confirmation would reach the subscriber neither way.
     */
    CompletableFuture<Void> settled() {
        CompletableFuture<?>[] now = unanswered.toArray(CompletableFuture<?>[]::new);
        return now.length == 0 ? CompletableFuture.completedFuture(null)
                : CompletableFuture.allOf(now).handle((ok, failure) -> null);
    }

    /** The broker is stopping: nothing is subscribed again any more. */
    void close() {
        closed = true;
    }

    /** Whether a local session subscribes to {@code channel} or to a wildcard that matches it. */
    boolean wants(ChannelId channel) {
        if (wanted.contains(channel)) {
            return true;
        }
        for (ChannelId wildcard : channel.wildcards()) {
            if (wanted.contains(wildcard)) {
                return true;
            }
        }
        return false;
    }

    /** How many Redis channels (or shard channels) this node asks for. */
    synchronized int channels() {
        return channels;
    }

    /** How many Redis patterns this node asks for (none in sharded pub/sub). */
    synchronized int patterns() {
        return patterns;
    }

    private List<String> redisNames(ChannelId channel) {
        return shardNames != null ? shardNames.subscribed(channel) : List.of(names.subscription(channel));
    }

    private boolean pattern(ChannelId channel) {
        return shardNames == null && channel.isWild();
    }

    private void subscribe(String name, boolean pattern) {
        if (pattern) {
            patterns++;
            checked("PSUBSCRIBE", name, awaited(commands.psubscribe(name)));
        } else if (shardNames != null) {
            channels++;
            ssubscribe(name);
        } else {
            channels++;
            checked("SUBSCRIBE", name, awaited(commands.subscribe(name)));
        }
    }

    private void unsubscribe(String name, boolean pattern) {
        if (pattern) {
            patterns--;
            checked("PUNSUBSCRIBE", name, commands.punsubscribe(name));
        } else if (shardNames != null) {
            channels--;
            checked("SUNSUBSCRIBE", name, commands.sunsubscribe(name));
        } else {
            channels--;
            checked("UNSUBSCRIBE", name, commands.unsubscribe(name));
        }
    }

    private void ssubscribe(String name) {
        awaited(commands.ssubscribe(name)).whenComplete((ok, failure) -> {
            if (failure != null) {
                failures.increment();
                FAILURES.log("Redis refused or lost SSUBSCRIBE {}: {}; trying it again shortly", name,
                        failure.toString());
                try {
                    retries.schedule(() -> subscribeAgain(name), retryAfter.toMillis(), TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException stopped) {
                    // the broker is stopping
                }
            }
        });
    }

    /** A subscribe command's reply, counted among the {@link #unanswered} until it comes. */
    private <T> CompletionStage<T> awaited(RedisFuture<T> reply) {
        CompletableFuture<T> answered = reply.toCompletableFuture();
        unanswered.add(answered);
        answered.whenComplete((ok, failure) -> unanswered.remove(answered));
        return answered;
    }

    private void checked(String command, String name, CompletionStage<Void> reply) {
        reply.whenComplete((ok, failure) -> {
            if (failure != null) {
                failures.increment();
                FAILURES.log("Redis refused or lost " + command + " {}: {}", name, failure.toString());
            }
        });
    }
}
