package io.weft.transport.websocket;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting on a condition, never a fixed time: the tests' one polling loop. */
final class Await {
    private Await() {
    }

    /** Returns once {@code condition} holds; fails, naming {@code what}, if it does not within {@code within}. */
    static void until(Duration within, BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(10);
        }
    }
}
