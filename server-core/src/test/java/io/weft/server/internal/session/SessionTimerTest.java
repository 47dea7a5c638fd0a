package io.weft.server.internal.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.server.testing.ManualScheduler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionTimerTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final List<String> due = new ArrayList<>();
    private SessionTimer timer;

    SessionTimerTest() {
        timer = new SessionTimer(scheduler, generation -> {
            SessionTimer.Kind kind = timer.fired(generation);
            if (kind != SessionTimer.Kind.NONE) {
                due.add(kind + "@" + scheduler.now());
            }
        });
    }

    @Test
    void movingTheDeadlineLaterSchedulesNothing() {
        timer.arm(SessionTimer.Kind.EXPIRY, 10_000);
        assertEquals(1, scheduler.pending());
        for (int i = 0; i < 100; i++) {
            scheduler.advance(10);
            timer.arm(SessionTimer.Kind.HOLD, 20_000);
            timer.arm(SessionTimer.Kind.EXPIRY, 10_000);
        }
        assertEquals(1, scheduler.pending(), "one task, however often the deadline moves later");
        scheduler.advance(9_999);
        assertEquals(List.of(), due);
        scheduler.advance(1);
        assertEquals(List.of("EXPIRY@11000"), due);
    }

    @Test
    void movingItEarlierReschedules() {
        timer.arm(SessionTimer.Kind.HOLD, 20_000);
        timer.arm(SessionTimer.Kind.EXPIRY, 5_000);
        assertEquals(1, scheduler.pending(), "the later task is cancelled");
        scheduler.advance(5_000);
        assertEquals(List.of("EXPIRY@5000"), due);
        assertEquals(0, scheduler.pending());
    }

    @Test
    void aDisarmedOrStoppedTimerFiresNothing() {
        timer.arm(SessionTimer.Kind.HOLD, 1_000);
        timer.disarm();
        scheduler.advance(2_000);
        timer.arm(SessionTimer.Kind.EXPIRY, 1_000);
        timer.stop();
        scheduler.advance(2_000);
        assertEquals(List.of(), due);
        assertEquals(0, scheduler.pending());
    }

    @Test
    void theLatestKindIsTheOneDue() {
        timer.arm(SessionTimer.Kind.EXPIRY, 1_000);
        scheduler.advance(500);
        timer.arm(SessionTimer.Kind.HOLD, 1_000);
        scheduler.advance(1_000);
        assertEquals(List.of("HOLD@1500"), due);
    }
}
