package io.weft.server.internal.time;

import io.weft.server.spi.Scheduler;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The default {@link Scheduler}: one daemon thread; cancelled tasks leave the queue at once. */
public final class ExecutorScheduler implements Scheduler {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorScheduler.class);

    private final ScheduledThreadPoolExecutor executor;

    public ExecutorScheduler(String threadName) {
        this.executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
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
        return () -> future.cancel(false);
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
