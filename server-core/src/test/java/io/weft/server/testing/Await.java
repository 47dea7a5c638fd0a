package io.weft.server.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The tests' one way to wait: a condition checked until a deadline, never a fixed sleep. A failure names what was
 * awaited and, for a watched value, the last value seen, so a timeout says how far things got.
 */
public final class Await {
    /** How often a condition is checked. */
    private static final long CHECK_MILLIS = 10;

    private Await() {
    }

    /** Returns once {@code condition} holds; fails, naming {@code what}, if it does not within {@code within}. */
    public static void until(Duration within, BooleanSupplier condition, String what) throws InterruptedException {
        until(within, condition::getAsBoolean, done -> done, what);
    }

    /**
     * Returns the first value of {@code value} that {@code done} accepts; fails, naming {@code what} and the last value
     * seen, if none does within {@code within}.
     */
    public static <T> T until(Duration within, Supplier<T> value, Predicate<? super T> done, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            T seen = value.get();
            if (done.test(seen)) {
                return seen;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + within.toMillis() + " ms waiting until " + what
                        + (seen instanceof Boolean ? "" : "; last seen: " + seen));
            }
            Thread.sleep(CHECK_MILLIS);
        }
    }

    /**
     * Returns {@code value} once it has not changed for {@code quiet}; fails if it is still changing after
     * {@code within}. For counts that settle (frames a stalled client got before its socket buffers filled).
     */
    public static <T> T steady(Duration within, Duration quiet, Supplier<T> value, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        T last = value.get();
        long since = System.nanoTime();
        while (System.nanoTime() - since < quiet.toNanos()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + within.toMillis() + " ms waiting until " + what
                        + " settles; still changing, last seen: " + last);
            }
            Thread.sleep(CHECK_MILLIS);
            T now = value.get();
            if (!now.equals(last)) {
                last = now;
                since = System.nanoTime();
            }
        }
        return last;
    }
}
