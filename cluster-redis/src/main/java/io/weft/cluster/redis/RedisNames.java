package io.weft.cluster.redis;

import io.weft.bayeux.ChannelId;

/**
 * Bayeux channels as Redis names: a broadcast channel is the Redis channel {@code prefix + channel}; a wildcard
 * ({@code /a/*} or {@code /a/**}) is the Redis pattern {@code prefix/a/} followed by {@code *}, the prefix and the
 * parent's name escaped so that nothing in them acts as a glob.
 *
 * <p>Redis's {@code *} matches {@code /} too, so that one pattern covers both Bayeux wildcards of a parent: it brings
 * {@code /a/b/c} to a node that wants only {@code /a/*}. The receiver drops such a message by checking the channel
 * against what the node's sessions want ({@link Subscriptions#wants}), before decoding it: one lookup per wildcard
 * of the channel, cheaper and simpler than encoding each channel's depth into its Redis name (which would make
 * {@code /a/*} exact, but not {@code /a/**}, and would still need the check).
 */
final class RedisNames {
    private final String prefix;

    RedisNames(String prefix) {
        this.prefix = prefix;
    }

    /** The Redis channel a broadcast channel is published to and subscribed as. */
    String channel(String broadcastChannel) {
        return prefix + broadcastChannel;
    }

    /** What to subscribe in Redis for {@code channel}: its Redis channel, or for a wildcard its Redis pattern. */
    String subscription(ChannelId channel) {
        if (!channel.isWild()) {
            return channel(channel.id());
        }
        ChannelId parent = channel.parent();
        return globEscaped(prefix + (parent == null ? "" : parent.id()) + "/") + "*";
    }

    /** The Bayeux channel of a Redis channel this node received from, or null if it is not one of ours. */
    ChannelId bayeux(String redisChannel) {
        if (!redisChannel.startsWith(prefix)) {
            return null;
        }
        String channel = redisChannel.substring(prefix.length());
        return ChannelId.isValid(channel) ? ChannelId.of(channel) : null;
    }

    /** {@code text} as a Redis glob that matches only itself: {@code * ? [ ] \} escaped with a backslash. */
    static String globEscaped(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                escaped.append('\\');
            }
            escaped.append(c);
        }
        return escaped.toString();
    }
}
