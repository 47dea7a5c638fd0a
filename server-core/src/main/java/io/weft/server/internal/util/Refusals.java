package io.weft.server.internal.util;

import io.weft.bayeux.MessageDecodeException;
import io.weft.server.api.Limit;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * One counter per {@link Limit}: every refusal the engine or a transport makes past a bound is counted here, and
 * nowhere else. Counting is a {@link LongAdder} increment, cheap on any thread.
 */
public final class Refusals {
    private static final Limit[] LIMITS = Limit.values();

    private final LongAdder[] counts = new LongAdder[LIMITS.length];

    public Refusals() {
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new LongAdder();
        }
    }

    public void count(Limit limit) {
        counts[limit.ordinal()].increment();
    }

    /** Counts input the codec refused at one of its bounds, under the limit that sets it. */
    public void count(MessageDecodeException.Bound bound) {
        count(limitOf(bound));
    }

    /** The server limit that sets one of the codec's bounds. */
    public static Limit limitOf(MessageDecodeException.Bound bound) {
        return switch (bound) {
            case JSON_DEPTH -> Limit.JSON_DEPTH;
            case MESSAGES_PER_BATCH -> Limit.MESSAGES_PER_BATCH;
        };
    }

    public void count(Limit limit, long times) {
        counts[limit.ordinal()].add(times);
    }

    public long get(Limit limit) {
        return counts[limit.ordinal()].sum();
    }

    /** Every limit's count, zero included. */
    public Map<Limit, Long> snapshot() {
        EnumMap<Limit, Long> snapshot = new EnumMap<>(Limit.class);
        for (Limit limit : LIMITS) {
            snapshot.put(limit, get(limit));
        }
        return Collections.unmodifiableMap(snapshot);
    }
}
