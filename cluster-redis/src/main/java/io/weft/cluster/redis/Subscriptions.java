package io.weft.cluster.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
import io.weft.bayeux.ChannelId;
import io.weft.server.spi.QuietLog;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What this node's sessions want from Redis, and the SUBSCRIBE / PSUBSCRIBE commands that ask for it on the one
 * pub/sub connection. Two Bayeux wildcards of one parent ({@code /a/*}, {@code /a/**}) share one Redis pattern, which is
 * subscribed while either is wanted.
 *
 * <p>Commands are sent asynchronously, in the order of the calls: while Redis is away Lettuce queues them, and when it
 * reconnects it first subscribes again to what Redis had confirmed before the loss, then sends the queued commands,
 * so Redis ends with what is wanted now. {@link #add} and {@link #remove} are called on the engine's threads (ordered
 * per channel by the engine); {@link #wants} on the connection's thread.
 */
final class Subscriptions {
    private static final QuietLog FAILURES = new QuietLog(Subscriptions.class, "Redis subscription commands that failed");

    private final RedisNames names;
    private final RedisPubSubAsyncCommands<String, byte[]> commands;
    /** Every channel and pattern a local session subscribes to, for {@link #wants}. */
    private final Set<ChannelId> wanted = ConcurrentHashMap.newKeySet();
    /** The Bayeux channels and patterns behind each Redis name. Guarded by this. */
    private final Map<String, Set<ChannelId>> behind = new HashMap<>();
    private int channels;
    private int patterns;

    Subscriptions(RedisNames names, RedisPubSubAsyncCommands<String, byte[]> commands) {
        this.names = names;
        this.commands = commands;
    }

    synchronized void add(ChannelId channel) {
        if (!wanted.add(channel)) {
            return;
        }
        String name = names.subscription(channel);
        Set<ChannelId> those = behind.computeIfAbsent(name, n -> new HashSet<>(2));
        if (those.isEmpty()) {
            if (channel.isWild()) {
                patterns++;
                checked("PSUBSCRIBE", name, commands.psubscribe(name));
            } else {
                channels++;
                checked("SUBSCRIBE", name, commands.subscribe(name));
            }
        }
        those.add(channel);
    }

    synchronized void remove(ChannelId channel) {
        if (!wanted.remove(channel)) {
            return;
        }
        String name = names.subscription(channel);
        Set<ChannelId> those = behind.get(name);
        those.remove(channel);
        if (those.isEmpty()) {
            behind.remove(name);
            if (channel.isWild()) {
                patterns--;
                checked("PUNSUBSCRIBE", name, commands.punsubscribe(name));
            } else {
                channels--;
                checked("UNSUBSCRIBE", name, commands.unsubscribe(name));
            }
        }
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

    /** How many Redis channels this node asks for. */
    synchronized int channels() {
        return channels;
    }

    /** How many Redis patterns this node asks for. */
    synchronized int patterns() {
        return patterns;
    }

    private static void checked(String command, String name, RedisFuture<Void> reply) {
        reply.whenComplete((ok, failure) -> {
            if (failure != null) {
                FAILURES.log("Redis refused or lost " + command + " {}: {}", name, failure.toString());
            }
        });
    }
}
