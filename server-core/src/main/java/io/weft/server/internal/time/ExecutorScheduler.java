package io.weft.server.internal.time;

import io.weft.server.spi.Scheduler;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default {@link Scheduler}: one daemon thread. Cancelling is O(1): a cancelled task stays in the queue, inert,
 * until the scheduler thread purges the queue (once per {@link #PURGE_EVERY} cancellations) or its time comes.
 * Removing each one at once (the executor's remove-on-cancel policy) took the queue's lock and re-sorted its heap on
 * every cancellation, from the request threads: every long-poll cycle cancels two timers (the held connect's timeout
 * and the session's expiry), and under load that was about 7% of the server's CPU (JFR, docs/benchmarks/README.md).
 */
public final class ExecutorScheduler implements Scheduler {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorScheduler.class);
    /** Cancelled tasks left in the queue at most (about 100 bytes each) before the scheduler thread purges them. */
    static final int PURGE_EVERY = 10_000;

    private final ScheduledThreadPoolExecutor executor;
    private final AtomicInteger cancelled = new AtomicInteger();

    public ExecutorScheduler(String threadName) {
        this.executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(false);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public long now() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    }

    @Override
    public Task schedule(Runnable task, long delayMillis) {
        ScheduledFuture<?> future;
        try {
            future = executor.schedule(() -> runSafely(task), delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            return () -> false;
        }
        return () -> {
            boolean cancelledNow = future.cancel(false);
            if (cancelledNow && cancelled.incrementAndGet() % PURGE_EVERY == 0) {
                purgeLater();
            }
            return cancelledNow;
        };
    }

    private void purgeLater() {
        try {
            executor.execute(executor::purge);
        } catch (RejectedExecutionException closed) {
            // Shut down: the queue is gone with the executor.
        }
    }

    private static void runSafely(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException | Error x) {
            // A failing task must not kill the one timer thread every session depends on.
            LOG.error("scheduled task failed: {}", task, x);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
