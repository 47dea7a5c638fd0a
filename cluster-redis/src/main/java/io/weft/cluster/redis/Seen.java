package io.weft.cluster.redis;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which publishes of each node this node has had already, by their numbers ({@link Envelope}): the first copy of a
 * publish is delivered, the others are copies.
 *
 * <p>With plain pub/sub every copy comes over one connection in the publishers' order, so the highest number seen
 * would do. With sharded pub/sub the copies of one publish (its own channel, a wildcard's name) come from different
 * shards over different connections, and a publish to {@code /x} may come after a later one to {@code /y}: so each
 * node keeps the numbers it has had among the last {@link #WINDOW} below the highest (a ring of bits, 4 KB per
 * publishing node). A number further below is older than anything remembered: it is delivered, being far likelier a
 * lagging shard's only copy than a second copy arriving {@link #WINDOW} publishes late.
 *
 * <p>Called on the pub/sub connections' threads, of which sharded pub/sub has one per shard: the caller holds a node's
 * {@link Window} while it decides and delivers, so that a later publish taken from one shard cannot overtake, on its
 * way to the sessions, an earlier one taken from another.
 */
final class Seen {
    /** How many numbers below the highest one each node's window remembers. */
    static final int WINDOW = 1 << 15;
    /** The most publishing nodes remembered; a cluster restarting nodes all day stays far below it. */
    private static final int MAX_ORIGINS = 1024;

    private final Map<String, Window> origins = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Window> eldest) {
            return size() > MAX_ORIGINS;
        }
    };

    /** The numbers of node {@code origin}; synchronize on it to use it. */
    synchronized Window of(String origin) {
        return origins.computeIfAbsent(origin, o -> new Window());
    }

    /** One node's numbers: bit {@code n % WINDOW} tells whether {@code n} came, for {@code n} in the window. */
    static final class Window {
        private final long[] bits = new long[WINDOW / Long.SIZE];
        private long highest;

        /** Whether publish {@code number} comes here for the first time; remembers it. Hold this window's lock. */
        boolean first(long number) {
            if (number > highest) {
                if (number - highest >= WINDOW) {
                    Arrays.fill(bits, 0);
                } else {
                    for (long skipped = highest + 1; skipped < number; skipped++) {
                        clear(skipped); // enters the window now: forget what it held WINDOW numbers ago
                    }
                }
                highest = number;
                set(number);
                return true;
            }
            if (number <= highest - WINDOW) {
                return true;
            }
            if (isSet(number)) {
                return false;
            }
            set(number);
            return true;
        }

        private boolean isSet(long number) {
            int bit = (int) (number & (WINDOW - 1));
            return (bits[bit >>> 6] & (1L << bit)) != 0;
        }

        private void set(long number) {
            int bit = (int) (number & (WINDOW - 1));
            bits[bit >>> 6] |= 1L << bit;
        }

        private void clear(long number) {
            int bit = (int) (number & (WINDOW - 1));
            bits[bit >>> 6] &= ~(1L << bit);
        }
    }
}
