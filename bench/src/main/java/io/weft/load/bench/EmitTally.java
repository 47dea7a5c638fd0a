package io.weft.load.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What the emits of one period reached: for each emit (by its sequence number) the server's publish time, how many
 * clients it reached, and its last arrival; and every arrival's latency. Client threads report arrivals; the command's
 * thread sums up a period (once: its latencies are taken) and clears the tally for the next.
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
     * @param arrivals every client's every emit that arrived
     * @param p50Ms an arrival's time from its emit's publish, median
     * @param p99Ms that time's 99th percentile
     */
    record Period(int emits, double avgMs, double maxMs, double reachedPercent, double responsesPerSecond,
            long arrivals, double p50Ms, double p99Ms) {
    }

    /** Each arrival's time from its emit's publish, µs (up to an hour, 3 significant digits). */
    private final Recorder latencies = new Recorder(TimeUnit.HOURS.toMicros(1), 3);

    /** Per emit: {publish time µs, clients reached, last arrival µs}; each array guarded by itself. */
    private final Map<Long, long[]> perEmit = new ConcurrentHashMap<>();

    /** Emit {@code seq}, published at {@code publishedMicros}, reached one more client at {@code nowMicros}. */
    void arrived(long seq, long publishedMicros, long nowMicros) {
        long[] emit = perEmit.computeIfAbsent(seq, s -> new long[] {publishedMicros, 0, 0});
        synchronized (emit) {
            emit[1]++;
            emit[2] = Math.max(emit[2], nowMicros);
        }
        latencies.recordValue(Math.min(TimeUnit.HOURS.toMicros(1), Math.max(0, nowMicros - publishedMicros)));
    }

    /** Forgets every emit: the next period starts. */
    void clear() {
        perEmit.clear();
        latencies.reset();
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
        Histogram arrivals = latencies.getIntervalHistogram();
        return new Period(perEmit.size(), sum / n, max, 100.0 * reached / ((double) n * clients), rates / n,
                arrivals.getTotalCount(), arrivals.getValueAtPercentile(50) / 1000.0,
                arrivals.getValueAtPercentile(99) / 1000.0);
    }
}
