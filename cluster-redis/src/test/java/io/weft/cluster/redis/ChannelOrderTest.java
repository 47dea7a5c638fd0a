package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.server.spi.History;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

class ChannelOrderTest {
    private final List<Object> delivered = new ArrayList<>();
    private final List<Runnable> timers = new ArrayList<>();
    private final LongAdder gaps = new LongAdder();
    private final LongAdder late = new LongAdder();
    private final ChannelOrder order = new ChannelOrder(message -> delivered.add(message.getData()),
            (task, millis) -> timers.add(task), gaps, late);

    private void hear(String channel, String epoch, long offset) {
        order.accept(channel, new History.Position(epoch, offset),
                Message.Mutable.create().setChannel(channel).setData(channel + "#" + offset));
    }

    /** The wait is over for every timer set so far. */
    private void waited() {
        List<Runnable> due = new ArrayList<>(timers);
        timers.clear();
        due.forEach(Runnable::run);
    }

    @Test
    void aChannelHeardForTheFirstTimeStartsAtItsLowestOffsetOnceTheWaitIsOver() {
        hear("/a", "e", 5);
        hear("/a", "e", 3);
        hear("/a", "e", 4);
        assertEquals(List.of(), delivered, "where /a starts is not known yet");
        waited();
        assertEquals(List.of("/a#3", "/a#4", "/a#5"), delivered);
        assertEquals(0, gaps.sum());
    }

    @Test
    void aPublicationThatOvertookAnEarlierOneWaitsForIt() {
        hear("/a", "e", 1);
        hear("/b", "e", 7);
        waited();
        hear("/a", "e", 3);
        hear("/b", "e", 8); // another channel is not held up
        hear("/a", "e", 4);
        assertEquals(List.of("/a#1", "/b#7", "/b#8"), delivered);
        hear("/a", "e", 2);
        assertEquals(List.of("/a#1", "/b#7", "/b#8", "/a#2", "/a#3", "/a#4"), delivered);
        hear("/a", "e", 3);
        assertEquals(6, delivered.size(), "a late copy is dropped");
        assertEquals(1, late.sum());
        waited();
        assertEquals(0, gaps.sum(), "the timer finds nothing held");
    }

    @Test
    void aGapThatIsNotFilledInTimeIsGivenUpAndCounted() {
        hear("/a", "e", 1);
        waited();
        hear("/a", "e", 3);
        hear("/a", "e", 6);
        assertEquals(List.of("/a#1"), delivered);
        waited();
        assertEquals(List.of("/a#1", "/a#3"), delivered, "the first gap given up");
        waited();
        assertEquals(List.of("/a#1", "/a#3", "/a#6"), delivered);
        assertEquals(2, gaps.sum());
        hear("/a", "e", 2);
        assertEquals(3, delivered.size(), "too late now: dropped");
    }

    @Test
    void aChannelHeardAgainAfterItsSubscriptionWentStartsAfresh() {
        hear("/w/a", "e", 1);
        hear("/w/b", "e", 1);
        waited();
        order.forget(ChannelId.of("/w/*"));
        hear("/w/a", "e", 9); // published while nobody here listened: not a gap to wait for
        hear("/w/b", "e", 5);
        waited();
        assertEquals(List.of("/w/a#1", "/w/b#1", "/w/a#9", "/w/b#5"), delivered);
        order.forget(ChannelId.of("/w/a"));
        hear("/w/a", "e", 12);
        waited();
        assertEquals("/w/a#12", delivered.get(4));
        assertEquals(0, gaps.sum());
    }

    @Test
    void aNewEpochStartsAgainAfterWhatTheOldOneHeld() {
        hear("/a", "e", 1);
        waited();
        hear("/a", "e", 3);
        hear("/a", "f", 1);
        assertEquals(List.of("/a#1", "/a#3"), delivered, "the old epoch's held one goes first, its gap given up");
        waited();
        hear("/a", "f", 2);
        assertEquals(List.of("/a#1", "/a#3", "/a#1", "/a#2"), delivered);
        assertEquals(1, gaps.sum());
    }
}
