package io.weft.load.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class LadderStepTest {
    private static Ladder.Plan plan(ChatTransport transport, String label) {
        return new Ladder.Plan("weft", transport, 1000, 100, 50, List.of(1000L, 2000L), 0, 0, 3000, 5000, 10, 1000,
                label, -1, Path.of("chat.csv"), null);
    }

    private static LadderStep step(long offered, double delivered, long expected, long received, double p99Ms) {
        return new LadderStep(offered, offered / 10.0, delivered, expected, received, 1.5, 2.5, p99Ms, 12.25, 0.5,
                33.3, 21.7, 12.5);
    }

    @Test
    void aRungThatKeepsUpIsBelowTheKnee() {
        assertFalse(step(10_000, 9_000, 50_000, 49_500, 1000).pastKnee(1000), "90% delivered, 1% lost, p99 at the bound");
    }

    @Test
    void deliveringLessThanNinetyPercentOfTheOfferedRateIsTheKnee() {
        assertTrue(step(10_000, 8_999, 50_000, 50_000, 5).pastKnee(1000));
    }

    @Test
    void aP99AboveTheBoundIsTheKnee() {
        assertTrue(step(10_000, 10_000, 50_000, 50_000, 1000.01).pastKnee(1000));
        assertFalse(step(10_000, 10_000, 50_000, 50_000, 1000.01).pastKnee(60_000), "the bound is the plan's");
    }

    @Test
    void losingMoreThanOnePercentIsTheKnee() {
        LadderStep lossy = step(10_000, 10_000, 50_000, 49_499, 5);

        assertEquals(1.002, lossy.lostPercent(), 1e-9);
        assertTrue(lossy.pastKnee(1000));
        assertEquals(0, step(10_000, 10_000, 0, 0, 0).lostPercent(), "nothing expected, nothing lost");
        assertEquals(0, step(10_000, 10_000, 10, 12, 0).lostPercent(), "more than expected is not negative loss");
    }

    @Test
    void theCsvRowHasTheColumnsRatiosPyAndTheDocsRead() {
        assertEquals("server,transport,clients,rooms,size,offered_per_s,publish_per_s,delivered_per_s,expected,"
                + "received,lost_pct,p50_ms,p90_ms,p99_ms,max_ms,load_avg,label,server_cpu_pct,server_cpu_us_per_msg,"
                + "client_cpu_pct", LadderStep.HEADER);
        assertEquals("weft,websocket,1000,100,50,10000,1000.0,9876,50000,49990,0.02,1.50,2.50,4.25,12.25,0.50,round1,"
                + "33.3,21.70,12.5", new LadderStep(10_000, 1000, 9876.4, 50_000, 49_990, 1.5, 2.5, 4.25, 12.25, 0.5,
                        33.3, 21.7, 12.5).csvRow(plan(ChatTransport.WEBSOCKET, "round1")));
    }

    @Test
    void theLeanClientIsRecordedAsTheWebsocketConnectionTypeItSpeaks() {
        String row = step(1000, 1000, 10, 10, 1).csvRow(plan(ChatTransport.LEAN_WEBSOCKET, ""));

        assertTrue(row.startsWith("weft,websocket,1000,100,50,1000,"), row);
        assertEquals("websocket", plan(ChatTransport.LEAN_WEBSOCKET, "").hlogName(1000).split("-")[1]);
    }

    @Test
    void cpuNotMeasuredIsNaNInTheRow() {
        String row = new LadderStep(1000, 100, 1000, 10, 10, 1, 1, 1, 1, 0.5, Double.NaN, Double.NaN, Double.NaN)
                .csvRow(plan(ChatTransport.LONG_POLLING, ""));

        assertTrue(row.endsWith(",0.50,,NaN,NaN,NaN"), row);
        assertTrue(row.startsWith("weft,long-polling,"), row);
    }

    @Test
    void eachRungsHistogramIsNamedForTheRunAndItsLabel() {
        assertEquals("weft-websocket-1000c-100r-50B-20000-round1.hlog",
                plan(ChatTransport.LEAN_WEBSOCKET, "round1").hlogName(20_000));
        assertEquals("weft-long-polling-1000c-100r-50B-10000-1000c_50B.hlog",
                plan(ChatTransport.LONG_POLLING, "1000c/50B").hlogName(10_000));
        assertEquals("weft-websocket-1000c-100r-50B-2000.hlog", plan(ChatTransport.WEBSOCKET, "").hlogName(2000));
    }

    @Test
    void roomsAreFilledInTurnSoTheirSizesDifferByOneAtMost() {
        assertEquals(10, Ladder.subscribers(0, 100, 1000));
        assertEquals(10, Ladder.subscribers(99, 100, 1000));
        assertEquals(2, Ladder.subscribers(4, 10, 15), "clients 4 and 14");
        assertEquals(1, Ladder.subscribers(5, 10, 15), "client 5 alone");
        int total = 0;
        for (int room = 0; room < 7; room++) {
            total += Ladder.subscribers(room, 7, 100);
        }
        assertEquals(100, total);
    }

    @Test
    void aPlanThatCannotRunIsRefusedAtStart() {
        assertThrows(IllegalArgumentException.class, () -> new Ladder.Plan("weft", ChatTransport.WEBSOCKET, 10, 100,
                50, List.of(1000L), 0, 0, 0, 1000, 10, 1000, "", -1, Path.of("x.csv"), null), "more rooms than clients");
        assertThrows(IllegalArgumentException.class, () -> new Ladder.Plan("weft", ChatTransport.WEBSOCKET, 100, 10,
                50, List.of(), 0, 0, 0, 1000, 10, 1000, "", -1, Path.of("x.csv"), null), "no rates");
        assertThrows(IllegalArgumentException.class, () -> new Ladder.Plan("weft", ChatTransport.WEBSOCKET, 100, 10,
                50, List.of(1000L), 0, 0, 0, 1000, 10, 1000, "a,b", -1, Path.of("x.csv"), null), "a label with a comma");
        assertThrows(IllegalArgumentException.class, () -> new Ladder.Plan("weft", ChatTransport.WEBSOCKET, 100, 10,
                50, List.of(1000L), 0, 0, 0, 0, 10, 1000, "", -1, Path.of("x.csv"), null), "no measured window");
        assertThrows(IllegalArgumentException.class, () -> new Ladder.Plan("weft", ChatTransport.WEBSOCKET, 100, 10,
                50, List.of(1000L), 1000, -1, 0, 1000, 10, 1000, "", -1, Path.of("x.csv"), null),
                "a negative prewarm rate");
    }

    @Test
    void transportsAreNamedAsTheScriptsPassThem() {
        assertEquals(ChatTransport.LEAN_WEBSOCKET, ChatTransport.parse("lean-websocket"));
        assertEquals(ChatTransport.LONG_POLLING, ChatTransport.parse("Long-Polling"));
        assertEquals("websocket", ChatTransport.LEAN_WEBSOCKET.connectionType());
        assertEquals(ChatTransport.LEAN_LONG_POLLING, ChatTransport.parse("lean-long-polling"));
        assertEquals("long-polling", ChatTransport.LEAN_LONG_POLLING.connectionType());
        assertThrows(IllegalArgumentException.class, () -> ChatTransport.parse("carrier-pigeon"));
    }
}
