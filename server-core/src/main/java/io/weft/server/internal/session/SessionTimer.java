package io.weft.server.internal.session;

import io.weft.server.api.Scheduler;
import java.util.function.LongConsumer;

/**
 * A session's one timer, whose deadline moves: the held {@code /meta/connect}'s timeout or the session's expiry,
 * whichever applies now. Moving the deadline later is writing two fields; the scheduled task, when it fires early,
 * schedules itself again for the rest. Only moving it earlier than the scheduled task schedules a new one. A
 * long-poll cycle (hold, resume, hold, ...) therefore costs the scheduler's queue nothing most of the time, where a
 * timer per hold and per expiry cost two schedules and two cancellations, each under the queue's one lock.
 *
 * <p>Not thread-safe: guarded by the owning {@link Mailbox}'s lock. The scheduled task calls the owner's callback
 * with its generation; the owner takes its lock and asks {@link #fired(long)} what is due.
 */
final class SessionTimer {
    /** What the deadline is for. */
    enum Kind { NONE, HOLD, EXPIRY }

    private final Scheduler scheduler;
    private final LongConsumer onTask;
    private Kind kind = Kind.NONE;
    private long deadline;
    private Scheduler.Task task;
    private long taskDue;
    private long generation;

    /** @param onTask run by the scheduled task, on the scheduler thread, with the task's generation */
    SessionTimer(Scheduler scheduler, LongConsumer onTask) {
        this.scheduler = scheduler;
        this.onTask = onTask;
    }

    Kind kind() {
        return kind;
    }

    /** Sets the deadline {@code delayMillis} from now, for {@code what}. */
    void arm(Kind what, long delayMillis) {
        kind = what;
        deadline = scheduler.now() + delayMillis;
        if (task == null || taskDue > deadline) {
            schedule(delayMillis);
        }
    }

    /** No deadline: a task still scheduled will find nothing to do. */
    void disarm() {
        kind = Kind.NONE;
    }

    /** No deadline, and the scheduled task is cancelled: the session has ended. */
    void stop() {
        kind = Kind.NONE;
        if (task != null) {
            task.cancel();
            task = null;
        }
        generation++;
    }

    /**
     * The scheduled task of {@code taskGeneration} has run: returns what is due now, or {@link Kind#NONE} when
     * nothing is (no deadline, a task replaced since, or a deadline moved later, for which the task is scheduled
     * again).
     */
    Kind fired(long taskGeneration) {
        if (taskGeneration != generation) {
            return Kind.NONE;
        }
        task = null;
        if (kind == Kind.NONE) {
            return Kind.NONE;
        }
        long left = deadline - scheduler.now();
        if (left > 0) {
            schedule(left);
            return Kind.NONE;
        }
        Kind due = kind;
        kind = Kind.NONE;
        return due;
    }

    private void schedule(long delayMillis) {
        if (task != null) {
            task.cancel();
        }
        long mine = ++generation;
        taskDue = scheduler.now() + delayMillis;
        task = scheduler.schedule(() -> onTask.accept(mine), delayMillis);
    }
}
