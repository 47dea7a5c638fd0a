package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MeasurementTest {
    @Test
    void latenciesFromManyThreadsAreMergedAndCountedFromTheIntendedTime() throws Exception {
        Measurement measurement = new Measurement(true);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        for (int t = 0; t < 4; t++) {
            threads.execute(() -> {
                for (int i = 0; i < 250; i++) {
                    measurement.arrived(1_000_000, 1_000_000 + 2_000_000, false);
                }
            });
        }
        threads.shutdown();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        measurement.arrived(0, 5, true);

        assertEquals(1_001, measurement.messages());
        assertEquals(1, measurement.duplicates());
        LatencySummary summary = LatencySummary.of(measurement.latencies());
        assertEquals(1_001, summary.samples());
        assertEquals(2_000, summary.p50(), 2);
    }

    @Test
    void resetStartsARunFromNothing() {
        Measurement measurement = new Measurement(true);
        measurement.arrived(0, 1_000, false);
        measurement.response();

        measurement.reset();

        assertEquals(0, measurement.messages());
        assertEquals(0, measurement.responses());
        assertEquals(0, measurement.incomingNanos());
        assertEquals(0, measurement.latencies().getTotalCount());
    }
}
