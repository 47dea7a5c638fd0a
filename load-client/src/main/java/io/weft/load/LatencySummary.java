package io.weft.load;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * A run's latencies, in microseconds: the percentiles the report prints and the distribution curve, cut into
 * {@link #BUCKETS} equal buckets between the smallest and largest value. Immutable.
 */
record LatencySummary(long samples, long min, double avg, long p50, long p90, long p99, long p999, long max,
        List<Bucket> buckets) {
    static final int BUCKETS = 20;

    /** Latencies up to {@code upTo} µs (and above the previous bucket's bound): {@code count} of them. */
    record Bucket(long upTo, long count) {
    }

    /** Summarises {@code nanos}, a histogram of nanoseconds. */
    static LatencySummary of(Histogram nanos) {
        long samples = nanos.getTotalCount();
        if (samples == 0) {
            return new LatencySummary(0, 0, 0, 0, 0, 0, 0, 0, List.of());
        }
        long min = nanos.getMinValue();
        long max = nanos.getMaxValue();
        List<Bucket> buckets = new ArrayList<>(BUCKETS);
        double width = Math.max(1.0, (double) (max - min) / BUCKETS);
        long lower = min;
        for (int i = 1; i <= BUCKETS; i++) {
            long upper = i == BUCKETS ? max : min + Math.round(width * i);
            long count = i == 1 ? nanos.getCountBetweenValues(lower, upper)
                    : nanos.getCountBetweenValues(lower + 1, upper);
            buckets.add(new Bucket(micros(upper), count));
            lower = upper;
            if (upper >= max) {
                break;
            }
        }
        return new LatencySummary(samples, micros(min), nanos.getMean() / 1_000.0,
                micros(nanos.getValueAtPercentile(50)), micros(nanos.getValueAtPercentile(90)),
                micros(nanos.getValueAtPercentile(99)), micros(nanos.getValueAtPercentile(99.9)), micros(max),
                buckets);
    }

    private static long micros(long nanos) {
        return nanos / 1_000;
    }
}
