package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

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

    @Test
    void aPublicationThatOvertookAnEarlierOneWaitsForIt() {
        hear("/a", "e", 1);
        hear("/a", "e", 3);
        hear("/b", "e", 7); // another channel is not held up
        hear("/a", "e", 4);
        assertEquals(List.of("/a#1", "/b#7"), delivered);
        hear("/a", "e", 2);
        assertEquals(List.of("/a#1", "/b#7", "/a#2", "/a#3", "/a#4"), delivered);
        hear("/a", "e", 3);
        assertEquals(5, delivered.size(), "a late copy is dropped");
        assertEquals(1, late.sum());
        timers.forEach(Runnable::run);
        assertEquals(0, gaps.sum(), "the timer finds nothing held");
    }

    @Test
    void aGapThatIsNotFilledInTimeIsGivenUpAndCounted() {
        hear("/a", "e", 1);
        hear("/a", "e", 3);
        hear("/a", "e", 6);
        assertEquals(List.of("/a#1"), delivered);
        timers.remove(0).run();
        assertEquals(List.of("/a#1", "/a#3"), delivered, "the first gap given up");
        timers.remove(0).run();
        assertEquals(List.of("/a#1", "/a#3", "/a#6"), delivered);
        assertEquals(2, gaps.sum());
        hear("/a", "e", 2);
        assertEquals(3, delivered.size(), "too late now: dropped");
    }

    @Test
    void aNewEpochStartsAgainAfterWhatTheOldOneHeld() {
        hear("/a", "e", 1);
        hear("/a", "e", 3);
        hear("/a", "f", 1);
        assertEquals(List.of("/a#1", "/a#3", "/a#1"), delivered);
        hear("/a", "f", 2);
        assertEquals(4, delivered.size());
    }
}
