package io.weft.cluster.redis;

import io.weft.bayeux.ChannelId;
import java.util.ArrayList;
import java.util.List;

/**
 * Bayeux channels as Redis shard channels, for sharded pub/sub ({@code SPUBLISH} / {@code SSUBSCRIBE}), which has no
 * patterns: a wildcard subscription is a shard channel of its own name, and a publish goes to every name that a
 * subscription matching it would listen to.
 *
 * <p>A publish to {@code /a/b/c} goes to {@code weft:/a/b/c} (its subscribers), {@code weft:/a/b/*} (the subscribers of
 * {@code /a/b/*} and of {@code /a/b/**}: both take a parent's children, so they share one name) and, for each ancestor
 * above the parent, {@code weft:/a/**} and {@code weft:/**} (subscribers of a deep wildcard, for the channels below its
 * children). A subscription to {@code /a/*} listens to {@code weft:/a/*}; one to {@code /a/**} to {@code weft:/a/*} and
 * {@code weft:/a/**}. A channel of depth {@code d} is published to {@code d + 1} names, and each wildcard subscription
 * receives each publish it matches on exactly one name, and none it does not match (unlike a Redis glob, where
 * {@code *} crosses {@code /}).
 *
 * <p>No glob is involved, so nothing is escaped; the names hash to slots (and so to shards) as they are.
 */
final class ShardNames {
    private final String prefix;

    ShardNames(String prefix) {
        this.prefix = prefix;
    }

    /** The shard channels a publish to {@code channel} (a broadcast channel) goes to, its own name first. */
    List<String> published(ChannelId channel) {
        List<String> names = new ArrayList<>(channel.depth() + 1);
        names.add(prefix + channel.id());
        List<ChannelId> wildcards = channel.wildcards(); // P/*, P/**, then each ancestor's /** up to /**
        names.add(prefix + wildcards.get(0).id());
        for (int i = 2; i < wildcards.size(); i++) {
            names.add(prefix + wildcards.get(i).id());
        }
        return names;
    }

    /** The shard channels a subscription to {@code channel} (a channel or a wildcard) listens to. */
    List<String> subscribed(ChannelId channel) {
        if (!channel.isDeepWild()) {
            return List.of(prefix + channel.id());
        }
        ChannelId parent = channel.parent();
        String children = (parent == null ? "" : parent.id()) + "/" + ChannelId.WILD;
        return List.of(prefix + children, prefix + channel.id());
    }
}
