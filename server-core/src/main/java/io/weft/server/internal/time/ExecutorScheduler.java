package io.weft.server.internal.time;

import io.weft.server.api.Scheduler;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The default {@link Scheduler}: one daemon thread; cancelled tasks leave the queue at once. */
public final class ExecutorScheduler implements Scheduler {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorScheduler.class);

    /** How long {@link #close} waits for a task that is running to end. */
    private static final long CLOSE_WAIT_MILLIS = 5_000;

    private final ScheduledThreadPoolExecutor executor;
    private volatile Thread thread;

    public ExecutorScheduler(String threadName) {
        this.executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread created = new Thread(runnable, threadName);
            created.setDaemon(true);
            thread = created;
            return created;
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

    /**
     * Cancels what is scheduled and returns once the thread has ended (a task that is running is let finish, for up to
     * 5 s), so that a web application that closes its server in {@code contextDestroyed} leaves no thread behind. From
     * a task of this scheduler, it does not wait for itself.
     */
    @Override
    public void close() {
        executor.shutdownNow();
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            if (!executor.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                LOG.warn("a scheduled task did not end within {} ms of close", CLOSE_WAIT_MILLIS);
            }
            Thread last = thread;
            if (last != null) {
                last.join(CLOSE_WAIT_MILLIS);
            }
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
    }
}
