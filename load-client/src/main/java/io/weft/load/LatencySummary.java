package io.weft.load;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

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
        double width = Math.max(1.0, (double) (max - min) / BUCKETS);
        int used = (int) Math.min(BUCKETS, Math.ceil((max - min + 1) / width));
        long[] counts = new long[used];
        for (HistogramIterationValue value : nanos.recordedValues()) {
            int index = (int) Math.min(used - 1, Math.max(0, (value.getValueIteratedTo() - min) / width));
            counts[index] += value.getCountAtValueIteratedTo();
        }
        List<Bucket> buckets = new ArrayList<>(used);
        for (int i = 0; i < used; i++) {
            long upper = i == used - 1 ? max : min + Math.round(width * (i + 1));
            buckets.add(new Bucket(micros(upper), counts[i]));
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
