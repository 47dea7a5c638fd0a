package io.weft.load.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class EmitTallyTest {
    @Test
    void anEmitTakesFromItsPublishToItsLastArrival() {
        EmitTally tally = new EmitTally();
        tally.arrived(1, 1_000_000, 1_010_000);
        tally.arrived(1, 1_000_000, 1_040_000);
        tally.arrived(1, 1_000_000, 1_020_000);
        tally.arrived(2, 2_000_000, 2_020_000);
        tally.arrived(2, 2_000_000, 2_020_000);

        EmitTally.Period period = tally.period(3);

        assertEquals(2, period.emits());
        assertEquals(30, period.avgMs(), 1e-9, "40 ms and 20 ms");
        assertEquals(40, period.maxMs(), 1e-9);
        assertEquals(100.0 * 5 / 6, period.reachedPercent(), 1e-9, "5 of 2 x 3 deliveries");
        assertEquals((3 / 0.040 + 2 / 0.020) / 2, period.responsesPerSecond(), 1e-9);
        assertEquals(5, period.arrivals());
        assertEquals(20, period.p50Ms(), 0.05, "10, 20, 20, 20 and 40 ms");
        assertEquals(40, period.p99Ms(), 0.05);
    }

    @Test
    void aPeriodStartsFromNothing() {
        EmitTally tally = new EmitTally();
        tally.arrived(1, 0, 5_000);

        tally.clear();

        EmitTally.Period nothing = tally.period(10);
        assertEquals(0, nothing.emits());
        assertEquals(0, nothing.reachedPercent());
        assertEquals(0, nothing.arrivals(), "the latencies start from nothing too");
    }
}
