package io.weft.server.stress;

import io.weft.server.api.Scheduler;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Scheduler} around a real one that knows which tasks are still waiting to run (scheduled, neither run nor
 * cancelled) and records whatever a task throws, before the real scheduler sees it.
 */
final class CountingScheduler implements Scheduler {
    private final Scheduler delegate;
    private final Set<Entry> waiting = ConcurrentHashMap.newKeySet();
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private final AtomicLong scheduled = new AtomicLong();

    CountingScheduler(Scheduler delegate) {
        this.delegate = delegate;
    }

    private final class Entry implements Task, Runnable {
        private final Runnable task;
        private volatile Task real;

        Entry(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            waiting.remove(this);
            try {
                task.run();
            } catch (RuntimeException | Error x) {
                failures.add(x);
                throw x;
            }
        }

        @Override
        public boolean cancel() {
            boolean cancelled = real.cancel();
            if (cancelled) {
                waiting.remove(this);
            }
            return cancelled;
        }

        /** Who scheduled it: the class of the task, without the lambda's number. */
        String owner() {
            String name = task.getClass().getName();
            int lambda = name.indexOf("$$");
            return lambda < 0 ? name : name.substring(0, lambda);
        }
    }

    @Override
    public long now() {
        return delegate.now();
    }

    @Override
    public Task schedule(Runnable task, long delayMillis) {
        Entry entry = new Entry(task);
        waiting.add(entry);
        scheduled.incrementAndGet();
        entry.real = delegate.schedule(entry, delayMillis);
        return entry;
    }

    /** The tasks waiting to run, counted by the class that scheduled them. */
    Map<String, Integer> waiting() {
        Map<String, Integer> byOwner = new TreeMap<>();
        for (Entry entry : waiting) {
            byOwner.merge(entry.owner(), 1, Integer::sum);
        }
        return byOwner;
    }

    /** The tasks waiting to run other than those of {@code owner}, counted by the class that scheduled them. */
    Map<String, Integer> waitingExcept(String owner) {
        Map<String, Integer> others = waiting();
        others.remove(owner);
        return others;
    }

    long scheduled() {
        return scheduled.get();
    }

    Queue<Throwable> failures() {
        return failures;
    }

    @Override
    public void close() {
        delegate.close();
    }
}
