package io.weft.server.testing;

import io.weft.server.api.Scheduler;
import java.util.PriorityQueue;

/**
 * A {@link Scheduler} whose clock moves only when a test says so: {@link #advance(long)} runs, in time order, every
 * task that falls due. Thread-safe; tasks run on the thread that advances.
 */
public final class ManualScheduler implements Scheduler {
    private final PriorityQueue<Entry> tasks = new PriorityQueue<>();
    private long now;
    private long sequence;

    private final class Entry implements Comparable<Entry>, Task {
        final long due;
        final long order;
        final Runnable task;
        boolean cancelled;

        Entry(long due, long order, Runnable task) {
            this.due = due;
            this.order = order;
            this.task = task;
        }

        @Override
        public int compareTo(Entry other) {
            int byTime = Long.compare(due, other.due);
            return byTime != 0 ? byTime : Long.compare(order, other.order);
        }

        @Override
        public boolean cancel() {
            synchronized (ManualScheduler.this) {
                if (cancelled || !tasks.remove(this)) {
                    return false;
                }
                cancelled = true;
                return true;
            }
        }
    }

    @Override
    public synchronized long now() {
        return now;
    }

    @Override
    public synchronized Task schedule(Runnable task, long delayMillis) {
        Entry entry = new Entry(now + Math.max(0, delayMillis), sequence++, task);
        tasks.add(entry);
        return entry;
    }

    /** Moves the clock forward, running each task that falls due at its own time. */
    public void advance(long millis) {
        long target;
        synchronized (this) {
            target = now + millis;
        }
        while (true) {
            Entry next;
            synchronized (this) {
                next = tasks.peek();
                if (next == null || next.due > target) {
                    now = target;
                    return;
                }
                tasks.poll();
                now = next.due;
            }
            next.task.run();
        }
    }

    /** How many tasks wait to run. */
    public synchronized int pending() {
        return tasks.size();
    }

    @Override
    public synchronized void close() {
        tasks.clear();
    }
}
