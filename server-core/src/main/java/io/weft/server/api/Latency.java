package io.weft.server.api;

import java.util.Arrays;

/**
 * A latency distribution read from a histogram: how many values fell in each bucket (named by the highest value it
 * holds, in microseconds), with the exact sum, sum of squares and maximum. Readings are cumulative; what happened
 * between two of them is {@link #since(Latency) later.since(earlier)}, the way a Prometheus histogram's buckets are
 * read over a window. Times are reported in milliseconds to the microsecond; percentiles are the highest value of the
 * bucket they fall in (capped by the maximum), so they are as fine as the buckets (within 12.5% for the server's own
 * recorder); mean and standard deviation are exact. Immutable.
 */
public final class Latency {
    private static final Latency NONE = new Latency(new long[0], new long[0], 0, 0, 0, 0);

    private final long[] upToMicros;
    private final long[] counts;
    private final long count;
    private final double sumMicros;
    private final double sumOfSquares;
    private final long maxMicros;

    private Latency(long[] upToMicros, long[] counts, long count, double sumMicros, double sumOfSquares,
            long maxMicros) {
        this.upToMicros = upToMicros;
        this.counts = counts;
        this.count = count;
        this.sumMicros = sumMicros;
        this.sumOfSquares = sumOfSquares;
        this.maxMicros = maxMicros;
    }

    /** Nothing recorded. */
    public static Latency none() {
        return NONE;
    }

    /**
     * A reading of a histogram (for recorders and for readers of one exported elsewhere, such as {@code /stats}).
     *
     * @param upToMicros each non-empty bucket's highest value, strictly ascending
     * @param counts the values in each bucket, each above zero
     * @param sumMicros the sum of the values
     * @param sumOfSquares the sum of their squares (µs²)
     * @param maxMicros the highest value
     * @throws IllegalArgumentException if the arrays differ in length, bounds are not ascending or counts not positive
     */
    public static Latency of(long[] upToMicros, long[] counts, double sumMicros, double sumOfSquares,
            long maxMicros) {
        if (upToMicros.length != counts.length) {
            throw new IllegalArgumentException(
                    "bounds and counts differ in length: " + upToMicros.length + " and " + counts.length);
        }
        long total = 0;
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] <= 0 || upToMicros[i] < 0 || (i > 0 && upToMicros[i] <= upToMicros[i - 1])) {
                throw new IllegalArgumentException("bucket " + i + " of " + counts.length
                        + ": bounds must ascend, counts be above zero");
            }
            total += counts[i];
        }
        if (total == 0) {
            return NONE;
        }
        return new Latency(upToMicros.clone(), counts.clone(), total, sumMicros, sumOfSquares, Math.max(0, maxMicros));
    }

    /**
     * What was recorded after {@code earlier} up to this reading: each bucket's count less {@code earlier}'s; the
     * maximum is the highest non-empty bucket's bound, capped by this reading's maximum.
     *
     * @throws IllegalArgumentException if {@code earlier} has more in a bucket than this one: it is not an earlier
     *     reading of the same histogram
     */
    public Latency since(Latency earlier) {
        if (earlier.count == 0) {
            return this;
        }
        long[] bounds = new long[upToMicros.length];
        long[] left = new long[upToMicros.length];
        int kept = 0;
        int e = 0;
        for (int i = 0; i < upToMicros.length; i++) {
            long before = 0;
            if (e < earlier.upToMicros.length && earlier.upToMicros[e] < upToMicros[i]) {
                throw notEarlier(earlier);
            }
            if (e < earlier.upToMicros.length && earlier.upToMicros[e] == upToMicros[i]) {
                before = earlier.counts[e++];
            }
            long difference = counts[i] - before;
            if (difference < 0) {
                throw notEarlier(earlier);
            }
            if (difference > 0) {
                bounds[kept] = upToMicros[i];
                left[kept++] = difference;
            }
        }
        if (e < earlier.upToMicros.length) {
            throw notEarlier(earlier);
        }
        if (kept == 0) {
            return NONE;
        }
        long highest = Math.min(bounds[kept - 1], maxMicros);
        return of(Arrays.copyOf(bounds, kept), Arrays.copyOf(left, kept), Math.max(0, sumMicros - earlier.sumMicros),
                Math.max(0, sumOfSquares - earlier.sumOfSquares), highest);
    }

    private IllegalArgumentException notEarlier(Latency earlier) {
        return new IllegalArgumentException("not an earlier reading of the same histogram: " + earlier + " vs " + this);
    }

    /** How many values were recorded. */
    public long count() {
        return count;
    }

    /** The mean, ms. */
    public double mean() {
        return count == 0 ? 0 : millis(sumMicros / count);
    }

    /** The standard deviation, ms. */
    public double stddev() {
        if (count == 0) {
            return 0;
        }
        double mean = sumMicros / count;
        return millis(Math.sqrt(Math.max(0, sumOfSquares / count - mean * mean)));
    }

    /** The highest value, ms. */
    public double max() {
        return millis(maxMicros);
    }

    /**
     * The value at or below which {@code fraction} of the values lie, ms: the highest value of its bucket, capped by
     * the maximum.
     */
    public double percentile(double fraction) {
        if (!(fraction >= 0 && fraction <= 1)) {
            throw new IllegalArgumentException("a fraction from 0 to 1: " + fraction);
        }
        if (count == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(fraction * count));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return millis(Math.min(upToMicros[i], maxMicros));
            }
        }
        return millis(maxMicros);
    }

    public double p50() {
        return percentile(0.50);
    }

    public double p90() {
        return percentile(0.90);
    }

    public double p99() {
        return percentile(0.99);
    }

    public double p999() {
        return percentile(0.999);
    }

    /** Each non-empty bucket's highest value, µs, ascending (a copy). */
    public long[] bucketBoundsMicros() {
        return upToMicros.clone();
    }

    /** The count of each bucket of {@link #bucketBoundsMicros()} (a copy). */
    public long[] bucketCounts() {
        return counts.clone();
    }

    /** The sum of the values, µs. */
    public double sumMicros() {
        return sumMicros;
    }

    /** The sum of the values' squares, µs². */
    public double sumOfSquaresMicros() {
        return sumOfSquares;
    }

    /** The highest value, µs. */
    public long maxMicros() {
        return maxMicros;
    }

    private static double millis(double micros) {
        return Math.round(micros) / 1000.0;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Latency that && count == that.count && maxMicros == that.maxMicros
                && sumMicros == that.sumMicros && sumOfSquares == that.sumOfSquares
                && Arrays.equals(upToMicros, that.upToMicros) && Arrays.equals(counts, that.counts);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(upToMicros) + Arrays.hashCode(counts);
    }

    @Override
    public String toString() {
        return "Latency[count=" + count + ", mean=" + mean() + ", p50=" + p50() + ", p90=" + p90() + ", p99=" + p99()
                + ", p999=" + p999() + ", max=" + max() + ", stddev=" + stddev() + " ms]";
    }
}
