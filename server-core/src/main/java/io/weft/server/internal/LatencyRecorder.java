package io.weft.server.internal;

import io.weft.server.api.ServerStats;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Latencies in microseconds, recorded from any thread without a lock, in log-linear buckets as HdrHistogram keeps them
 * (here with 8 sub-buckets per power of two: a percentile is reported within 12.5% of the recorded value, and exactly
 * below 16 µs). Percentiles are read from the bucket counts, the mean and standard deviation from exact sums. One
 * {@link LongAdder} per bucket: a record is one adder increment and three sums.
 */
public final class LatencyRecorder {
    private static final int SUB_BITS = 3;
    private static final int SUB_BUCKETS = 1 << SUB_BITS;
    /** Values below this are their own bucket. */
    private static final int LINEAR = 2 * SUB_BUCKETS;
    private static final int BUCKETS = LINEAR + (64 - (SUB_BITS + 1)) * SUB_BUCKETS;

    private final LongAdder[] counts = new LongAdder[BUCKETS];
    private final LongAdder total = new LongAdder();
    private final DoubleAdder sum = new DoubleAdder();
    private final DoubleAdder sumOfSquares = new DoubleAdder();
    private final AtomicLong max = new AtomicLong();

    public LatencyRecorder() {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] = new LongAdder();
        }
    }

    /** Records one latency; negative values (a clock step) count as zero. */
    public void record(long micros) {
        long value = Math.max(0, micros);
        counts[bucket(value)].increment();
        total.increment();
        sum.add(value);
        sumOfSquares.add((double) value * value);
        if (value > max.get()) {
            max.accumulateAndGet(value, Math::max);
        }
    }

    static int bucket(long value) {
        if (value < LINEAR) {
            return (int) value;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(value); // >= SUB_BITS + 1
        int sub = (int) (value >>> (exponent - SUB_BITS)) & (SUB_BUCKETS - 1);
        return LINEAR + (exponent - (SUB_BITS + 1)) * SUB_BUCKETS + sub;
    }

    /** The highest value that falls in {@code bucket}. */
    static long highest(int bucket) {
        if (bucket < LINEAR) {
            return bucket;
        }
        int exponent = (bucket - LINEAR) / SUB_BUCKETS + SUB_BITS + 1;
        long sub = (bucket - LINEAR) % SUB_BUCKETS;
        long lowest = (1L << exponent) + (sub << (exponent - SUB_BITS));
        return lowest + (1L << (exponent - SUB_BITS)) - 1;
    }

    /** A summary of what was recorded, in milliseconds. */
    public ServerStats.Latency summary() {
        long[] snapshot = new long[BUCKETS];
        long count = 0;
        for (int i = 0; i < BUCKETS; i++) {
            snapshot[i] = counts[i].sum();
            count += snapshot[i];
        }
        if (count == 0) {
            return new ServerStats.Latency(0, 0, 0, 0, 0, 0, 0, 0);
        }
        double mean = sum.sum() / count;
        double variance = Math.max(0, sumOfSquares.sum() / count - mean * mean);
        long highest = max.get();
        return new ServerStats.Latency(count, millis(mean), millis(percentile(snapshot, count, 0.50, highest)),
                millis(percentile(snapshot, count, 0.90, highest)), millis(percentile(snapshot, count, 0.99, highest)),
                millis(percentile(snapshot, count, 0.999, highest)), millis(highest), millis(Math.sqrt(variance)));
    }

    /** The value below which {@code fraction} of the recorded values lie: the highest value of its bucket, capped. */
    private static long percentile(long[] snapshot, long count, double fraction, long highest) {
        long rank = (long) Math.ceil(fraction * count);
        long seen = 0;
        for (int i = 0; i < snapshot.length; i++) {
            seen += snapshot[i];
            if (seen >= rank && snapshot[i] > 0) {
                return Math.min(highest(i), highest);
            }
        }
        return highest;
    }

    private static double millis(double micros) {
        return Math.round(micros) / 1000.0;
    }

}
