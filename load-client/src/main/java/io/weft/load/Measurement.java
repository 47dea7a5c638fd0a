package io.weft.load;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * What arrives during a run: a latency histogram per receiving thread (merged for the report, so threads never
 * contend on one), message and response counts, and the first and last arrival. Latency is measured from each
 * message's intended send time, taken from its data, so a sender that falls behind its schedule shows up as latency
 * rather than hiding it (no coordinated omission). Thread-safe; {@link #reset()} starts a run. Used by the load
 * client's runs and by the bench ladder's measured windows.
 */
public final class Measurement {
    private static final long NONE = Long.MIN_VALUE;

    private final List<SingleWriterRecorder> recorders = new CopyOnWriteArrayList<>();
    private final ThreadLocal<SingleWriterRecorder> recorder = ThreadLocal.withInitial(this::newRecorder);
    private final boolean recordLatency;
    private final LongAdder messages = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder responses = new LongAdder();
    private final AtomicLong firstArrival = new AtomicLong(NONE);
    private final LongAccumulator lastArrival = new LongAccumulator(Math::max, NONE);

    /** @param recordLatency whether {@link #arrived} records latencies (messages are always counted) */
    public Measurement(boolean recordLatency) {
        this.recordLatency = recordLatency;
    }

    private SingleWriterRecorder newRecorder() {
        SingleWriterRecorder created = new SingleWriterRecorder(3);
        recorders.add(created);
        return created;
    }

    /** A message arrived at {@code nowNanos} that was meant to be sent at {@code intendedNanos}. */
    public void arrived(long intendedNanos, long nowNanos, boolean duplicate) {
        firstArrival.compareAndSet(NONE, nowNanos);
        lastArrival.accumulate(nowNanos);
        messages.increment();
        if (duplicate) {
            duplicates.increment();
        }
        if (recordLatency) {
            recorder.get().recordValue(Math.max(0, nowNanos - intendedNanos));
        }
    }

    /** A response or frame carrying messages arrived. */
    public void response() {
        responses.increment();
    }

    public long messages() {
        return messages.sum();
    }

    public long duplicates() {
        return duplicates.sum();
    }

    public long responses() {
        return responses.sum();
    }

    /** Nanoseconds from the first arrival to the last; 0 before two arrivals. */
    public long incomingNanos() {
        long first = firstArrival.get();
        return first == NONE ? 0 : lastArrival.get() - first;
    }

    /** Every thread's latencies recorded since the last call (or reset), merged, in nanoseconds. */
    public Histogram latencies() {
        Histogram merged = new Histogram(3);
        for (SingleWriterRecorder each : recorders) {
            merged.add(each.getIntervalHistogram());
        }
        return merged;
    }

    public void reset() {
        latencies();
        messages.reset();
        duplicates.reset();
        responses.reset();
        firstArrival.set(NONE);
        lastArrival.reset();
    }
}
