package io.weft.server.internal.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.Latency;
import org.junit.jupiter.api.Test;

/** The latency recorder's buckets and what it reads from them. */
class LatencyRecorderTest {
    @Test
    void everyValueFallsInABucketWhoseRangeHoldsIt() {
        for (long value : new long[] {0, 1, 15, 16, 17, 31, 32, 1000, 1023, 1024, 123_456_789L, Long.MAX_VALUE / 2}) {
            int bucket = LatencyRecorder.bucket(value);
            assertTrue(LatencyRecorder.highest(bucket) >= value, value + " above its bucket");
            assertTrue(bucket == 0 || LatencyRecorder.highest(bucket - 1) < value, value + " below its bucket");
            assertTrue(LatencyRecorder.highest(bucket) <= value + value / 8 + 1, value + ": bucket wider than 12.5%");
        }
    }

    @Test
    void percentilesMeanAndSpreadOfKnownValues() {
        LatencyRecorder recorder = new LatencyRecorder();
        for (int i = 1; i <= 1000; i++) {
            recorder.record(i * 100L); // 0.1 ms to 100 ms, evenly
        }
        Latency latency = recorder.snapshot();
        assertEquals(1000, latency.count());
        assertEquals(50.05, latency.mean(), 0.001);
        assertEquals(100.0, latency.max(), 0.001);
        assertTrue(latency.p50() >= 50.0 && latency.p50() <= 50.0 * 1.125, String.valueOf(latency.p50()));
        assertTrue(latency.p99() >= 99.0 && latency.p99() <= 100.0, String.valueOf(latency.p99()));
        assertEquals(28.87, latency.stddev(), 0.01); // a uniform spread's: range / sqrt(12)
    }

    @Test
    void nothingRecordedReadsAsZeros() {
        Latency none = new LatencyRecorder().snapshot();
        assertEquals(Latency.none(), none);
        assertEquals(0, none.count());
        assertEquals(0.0, none.p99());
        assertEquals(0.0, none.mean());
    }
}
