package io.weft.server.api;

/**
 * The one timer of a Weft server: held {@code /meta/connect} timeouts, session expiry and channel sweeps all run
 * here, so no thread belongs to a session or a connection. Tasks must be short and must not block.
 *
 * <p>The default runs on one daemon thread; tests pass a manual scheduler to move time by hand.
 */
public interface Scheduler extends AutoCloseable {
    /** The current time in milliseconds, monotonic; only differences are meaningful. */
    long now();

    /** Runs {@code task} once, {@code delayMillis} from now. */
    Task schedule(Runnable task, long delayMillis);

    /** Stops running tasks; tasks not yet run are dropped. */
    @Override
    void close();

    /** A scheduled task. */
    interface Task {
        /** Stops the task if it has not run yet; returns whether it was stopped. */
        boolean cancel();
    }
}
