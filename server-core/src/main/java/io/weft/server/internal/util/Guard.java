package io.weft.server.internal.util;

import io.weft.bayeux.Promise;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way the engine calls application code (listeners, extensions, policies, authorizers, services): a
 * callback that throws is logged once per kind of failure with its stack trace, then quietly, and the engine
 * carries on as the caller says (skip it, or treat it as a denial). User code cannot wedge the engine: whatever it
 * throws is caught, {@code Error}s included (a StackOverflowError or an AssertionError from one listener must not end
 * a fan-out part way or leave a batch unanswered).
 */
public final class Guard {
    private static final Logger LOG = LoggerFactory.getLogger(Guard.class);

    /** Kinds of failure remembered; past this many, new kinds are logged quietly too (the map stays bounded). */
    private static final int MAX_KINDS = 256;

    private final ConcurrentHashMap<String, Boolean> logged = new ConcurrentHashMap<>();

    /** Runs a notification; a throw is logged and skipped. */
    public void run(String what, Runnable callback) {
        try {
            callback.run();
        } catch (Throwable x) {
            failed(what, x);
        }
    }

    /** Asks a question; a throw is logged and answered with {@code onFailure}. */
    public boolean test(String what, BooleanSupplier question, boolean onFailure) {
        try {
            return question.getAsBoolean();
        } catch (Throwable x) {
            failed(what, x);
            return onFailure;
        }
    }

    /**
     * Asks an asynchronous question: {@code ask} is given a promise to complete once. A throw, a failed promise, or a
     * null answer is logged and answered with {@code onFailure}; a second completion is ignored.
     */
    public void ask(String what, Consumer<Promise<Boolean>> ask, boolean onFailure, Consumer<Boolean> answer) {
        AtomicBoolean done = new AtomicBoolean();
        Promise<Boolean> promise = Promise.from(result -> {
            if (done.compareAndSet(false, true)) {
                answer.accept(result == null ? onFailure : result);
            }
        }, failure -> {
            if (done.compareAndSet(false, true)) {
                failed(what, failure);
                answer.accept(onFailure);
            }
        });
        try {
            ask.accept(promise);
        } catch (Throwable x) {
            promise.fail(x);
        }
    }

    /** Logs a failure of application code: the first of each kind with its stack trace, later ones quietly. */
    public void failed(String what, Throwable failure) {
        if (failure instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        String key = what + ":" + failure.getClass().getName();
        if (logged.size() < MAX_KINDS && logged.putIfAbsent(key, Boolean.TRUE) == null) {
            LOG.warn("{} failed; skipped (logged once per kind of failure)", what, failure);
        } else {
            LOG.debug("{} failed again: {}", what, failure.toString());
        }
    }
}
