package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class LatencySummaryTest {
    @Test
    void twentyBucketsFromMinToMaxHoldEverySample() {
        Histogram nanos = new Histogram(3);
        for (long micros = 1; micros <= 1_000; micros++) {
            nanos.recordValue(micros * 1_000);
        }

        LatencySummary summary = LatencySummary.of(nanos);

        assertEquals(1_000, summary.samples());
        assertEquals(1, summary.min());
        assertEquals(1_000, summary.max(), 1);
        assertEquals(500, summary.p50(), 1);
        assertEquals(990, summary.p99(), 1);
        assertEquals(LatencySummary.BUCKETS, summary.buckets().size());
        assertEquals(1_000, summary.buckets().stream().mapToLong(LatencySummary.Bucket::count).sum());
        assertEquals(summary.max(), summary.buckets().get(LatencySummary.BUCKETS - 1).upTo());
        for (int i = 1; i < summary.buckets().size(); i++) {
            assertTrue(summary.buckets().get(i).upTo() > summary.buckets().get(i - 1).upTo());
        }
    }

    @Test
    void noSamplesGivesAnEmptySummary() {
        LatencySummary summary = LatencySummary.of(new Histogram(3));
        assertEquals(0, summary.samples());
        assertTrue(summary.buckets().isEmpty());
    }
}
