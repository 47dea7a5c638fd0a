package io.weft.load.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the emits of one period reached: for each emit (by its sequence number) the server's publish time, how many
 * clients it reached, and its last arrival. Client threads report arrivals; the command's thread sums up a period and
 * clears the tally for the next.
 */
final class EmitTally {
    /**
     * One period's emits, averaged over the emits that reached anyone.
     *
     * @param emits how many emits arrived anywhere
     * @param avgMs the time from an emit's publish to its last arrival, averaged
     * @param maxMs that time's maximum
     * @param reachedPercent arrivals over emits × clients, %
     * @param responsesPerSecond clients an emit reached over the time it took, averaged (for long-polling each one is
     *     an HTTP response)
     */
    record Period(int emits, double avgMs, double maxMs, double reachedPercent, double responsesPerSecond) {
    }

    /** Per emit: {publish time µs, clients reached, last arrival µs}; each array guarded by itself. */
    private final Map<Long, long[]> perEmit = new ConcurrentHashMap<>();

    /** Emit {@code seq}, published at {@code publishedMicros}, reached one more client at {@code nowMicros}. */
    void arrived(long seq, long publishedMicros, long nowMicros) {
        long[] emit = perEmit.computeIfAbsent(seq, s -> new long[] {publishedMicros, 0, 0});
        synchronized (emit) {
            emit[1]++;
            emit[2] = Math.max(emit[2], nowMicros);
        }
    }

    /** Forgets every emit: the next period starts. */
    void clear() {
        perEmit.clear();
    }

    /** The period so far, for {@code clients} subscribed clients. */
    Period period(int clients) {
        double sum = 0;
        double max = 0;
        double reached = 0;
        double rates = 0;
        for (long[] emit : perEmit.values()) {
            synchronized (emit) {
                double ms = (emit[2] - emit[0]) / 1000.0;
                sum += ms;
                max = Math.max(max, ms);
                reached += emit[1];
                rates += emit[1] / Math.max(0.001, ms / 1000.0);
            }
        }
        int n = Math.max(1, perEmit.size());
        return new Period(perEmit.size(), sum / n, max, 100.0 * reached / ((double) n * clients), rates / n);
    }
}
