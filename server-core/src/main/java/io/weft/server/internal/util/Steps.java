package io.weft.server.internal.util;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loop over steps that may each finish later, on another thread (an asynchronous security policy, extension or
 * listener). While steps finish before they return, the loop iterates on the caller's stack, which therefore does
 * not grow with the number of steps (a {@code /meta/subscribe} naming a thousand channels is a thousand iterations,
 * not a thousand frames); when a step finishes later, the thread that finishes it carries the loop on.
 *
 * <p>A subclass implements {@link #startNext()}, which starts one step; the step calls {@link #next()} exactly once
 * when it has finished. One loop runs one sequence; it is not reusable.
 */
public abstract class Steps {
    private static final int RUNNING = 0;
    private static final int RETURNED = 1;
    private static final int FINISHED = 2;

    private final AtomicInteger state = new AtomicInteger();

    /**
     * Starts the next step, which calls {@link #next()} once when it has finished, before or after this returns.
     *
     * @return false if there is no step left (the loop ends; {@link #next()} must not be called)
     */
    protected abstract boolean startNext();

    /** Runs steps until one has not finished when it returns, or none is left. */
    protected final void run() {
        do {
            state.set(RUNNING);
            if (!startNext()) {
                return;
            }
        } while (!state.compareAndSet(RUNNING, RETURNED));
    }

    /** The current step has finished: the loop goes on, on this thread if the step has already returned. */
    protected final void next() {
        if (!state.compareAndSet(RUNNING, FINISHED)) {
            run();
        }
    }
}
