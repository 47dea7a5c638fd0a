package io.weft.load.bench;

import io.weft.load.Measurement;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * What one rung of the ladder measures, from the arrivals its clients report: every arrival counts towards the
 * delivered rate, but only messages whose intended send time falls inside the measured window are received messages
 * with a latency (steady state only: the warm-up's and the next rung's messages are not). The window is opened and
 * closed on the ladder's thread; arrivals come on client threads.
 */
final class StepWindow implements ChatLoad.Arrivals {
    private final Measurement inWindow = new Measurement(true);
    private final LongAdder arrivals = new LongAdder();
    private volatile long start = Long.MAX_VALUE;
    private volatile long end = Long.MAX_VALUE;

    /** From now on, messages meant to be sent in [{@code startNanos}, {@code endNanos}) are this window's. */
    void open(long startNanos, long endNanos) {
        inWindow.reset();
        start = startNanos;
        end = endNanos;
    }

    /** Nothing more is the window's: late messages are not counted, the next window's start from zero. */
    void close() {
        end = Long.MIN_VALUE;
    }

    @Override
    public void arrived(long sentNanos, long nowNanos) {
        arrivals.increment();
        if (sentNanos >= start && sentNanos < end) {
            inWindow.arrived(sentNanos, nowNanos, false);
        }
    }

    /** Every arrival so far, of any window or none. */
    long arrivals() {
        return arrivals.sum();
    }

    /** How many of the window's messages arrived. */
    long received() {
        return inWindow.messages();
    }

    /** The latencies of the window's messages, in nanoseconds (once: a second call gives what came since). */
    Histogram latencies() {
        return inWindow.latencies();
    }
}
