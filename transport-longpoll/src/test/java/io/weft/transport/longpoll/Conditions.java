package io.weft.transport.longpoll;

import java.util.function.BooleanSupplier;

/** Waiting on a condition instead of sleeping for a guessed time. */
final class Conditions {
    private Conditions() {
    }

    /** Polls {@code condition} until it holds; fails after {@code seconds}. */
    static void await(String what, long seconds, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(10);
        }
    }
}
