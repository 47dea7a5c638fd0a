package io.weft.server.internal.stats;

import io.weft.server.api.Latency;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Latencies in microseconds, recorded from any thread without a lock, in log-linear buckets as HdrHistogram keeps them
 * (here with 8 sub-buckets per power of two: a percentile is reported within 12.5% of the recorded value, and exactly
 * below 16 µs). {@link #snapshot()} hands the buckets, the exact sums and the maximum to {@link Latency}, which reads
 * percentiles, mean and deviation from them. One {@link LongAdder} per bucket: a record is one adder increment and
 * three sums.
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

    /** What was recorded so far: the non-empty buckets, the sums and the maximum. */
    public Latency snapshot() {
        long[] bounds = new long[BUCKETS];
        long[] taken = new long[BUCKETS];
        int kept = 0;
        for (int i = 0; i < BUCKETS; i++) {
            long count = counts[i].sum();
            if (count > 0) {
                bounds[kept] = highest(i);
                taken[kept++] = count;
            }
        }
        // Buckets, sums and maximum are read one after the other while others record: a value recorded in between
        // may be in the buckets and not yet in the sums, a skew of a few values in millions.
        return Latency.of(Arrays.copyOf(bounds, kept), Arrays.copyOf(taken, kept), sum.sum(), sumOfSquares.sum(),
                Math.max(max.get(), kept == 0 ? 0 : lowest(bounds[kept - 1])));
    }

    /** The lowest value of the bucket whose highest is {@code highest}. */
    private static long lowest(long highest) {
        return highest < LINEAR ? highest : highest - (Long.highestOneBit(highest) >>> SUB_BITS) + 1;
    }
}
