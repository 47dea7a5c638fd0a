package io.weft.cluster.redis;

import io.lettuce.core.cluster.SlotHash;
import io.weft.bayeux.ChannelId;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Redis keys of a channel's history: a hash ({@code epoch}, {@code offset}, {@code bytes}) and a stream (one entry
 * per kept publication), named after the channel's Redis name inside a hash tag: {@code {weft:/chat/room}:history}
 * and {@code {weft:/chat/room}:stream}.
 *
 * <p>The tag puts both keys in the slot of the name {@code weft:/chat/room} itself, which is the shard channel
 * sharded pub/sub publishes the channel to ({@link ShardNames}): the one history script per publish runs on the shard
 * that owns that slot and can SPUBLISH there (Redis refuses a script a name in another slot). Channel names may hold
 * braces, which make a tag of their own ({@code weft:/a{b}c} hashes {@code b}); when the plain tag does not give the
 * name's slot, the keys start with a short tag chosen for that slot instead ({@code {h4711}weft:/a{b}c:history}).
 */
final class HistoryKeys {
    /** The most tags ever searched: one per slot. */
    private static final Map<Integer, String> TAGS = new ConcurrentHashMap<>();
    /** Far more candidates than any slot needs (about 16,384 on average); a bound on a loop that always ends. */
    private static final int MAX_CANDIDATES = 10_000_000;

    private final String prefix;

    HistoryKeys(String prefix) {
        this.prefix = prefix;
    }

    /** The hash key then the stream key of {@code channel}'s history. */
    String[] of(ChannelId channel) {
        String name = prefix + channel.id();
        int slot = slot(name);
        String start = "{" + name + "}";
        if (slot(start + ":history") != slot) {
            start = "{" + tag(slot) + "}" + name;
        }
        return new String[] {start + ":history", start + ":stream"};
    }

    /** The slot of a key or shard channel, as Redis computes it (hash tags included). */
    static int slot(String name) {
        return SlotHash.getSlot(name.getBytes(StandardCharsets.UTF_8));
    }

    private static String tag(int slot) {
        return TAGS.computeIfAbsent(slot, wanted -> {
            for (int i = 0; i < MAX_CANDIDATES; i++) {
                String candidate = "h" + i;
                if (slot(candidate) == wanted) {
                    return candidate;
                }
            }
            throw new IllegalStateException("no tag found for slot " + wanted);
        });
    }
}
