package io.weft.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.weft.server.internal.stats.LatencyRecorder;
import org.junit.jupiter.api.Test;

/** Readings of a latency histogram, and what happened between two of them. */
class LatencyTest {
    @Test
    void theLaterReadingLessTheEarlierIsWhatWasRecordedBetween() {
        LatencyRecorder recorder = new LatencyRecorder();
        for (int i = 0; i < 1000; i++) {
            recorder.record(100_000); // 100 ms, before
        }
        Latency before = recorder.snapshot();
        for (int i = 1; i <= 100; i++) {
            recorder.record(i); // 1 µs to 100 µs, after
        }
        Latency between = recorder.snapshot().since(before);

        assertEquals(100, between.count());
        assertEquals(0.0505, between.mean(), 0.001, "50.5 µs, to the microsecond");
        assertEquals(0.1, between.max(), 0.1 * 0.125, "its bucket's bound; the 100 ms values before are not in it");
        assertEquals(between.max(), between.p99(), 0.0001);
        assertEquals(0.05, between.p50(), 0.05 * 0.125, between.toString());
        assertEquals(1100, recorder.snapshot().count(), "readings stay cumulative");
    }

    @Test
    void aReadingSinceItselfIsEmptyAndSinceNothingIsItself() {
        LatencyRecorder recorder = new LatencyRecorder();
        recorder.record(5);
        Latency reading = recorder.snapshot();
        assertEquals(Latency.none(), reading.since(reading));
        assertEquals(reading, reading.since(Latency.none()));
    }

    @Test
    void aReadingThatIsNotEarlierIsRefused() {
        LatencyRecorder recorder = new LatencyRecorder();
        recorder.record(5);
        Latency earlier = recorder.snapshot();
        recorder.record(5);
        Latency later = recorder.snapshot();
        assertThrows(IllegalArgumentException.class, () -> earlier.since(later));
        Latency elsewhere = Latency.of(new long[] {7}, new long[] {1}, 7, 49, 7);
        assertThrows(IllegalArgumentException.class, () -> later.since(elsewhere), "a bucket this one never had");
    }

    @Test
    void bucketsAreCheckedWhenMadeByHand() {
        assertThrows(IllegalArgumentException.class, () -> Latency.of(new long[] {1, 2}, new long[] {1}, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> Latency.of(new long[] {2, 1}, new long[] {1, 1}, 3, 5, 2));
        assertThrows(IllegalArgumentException.class, () -> Latency.of(new long[] {1}, new long[] {0}, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> Latency.none().percentile(1.5));
        Latency made = Latency.of(new long[] {10, 20}, new long[] {3, 1}, 50, 700, 19);
        assertEquals(0.01, made.p50());
        assertEquals(0.019, made.max(), "a percentile is capped by the maximum");
        assertEquals(0.019, made.percentile(1.0));
    }
}
