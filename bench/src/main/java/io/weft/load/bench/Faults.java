package io.weft.load.bench;

import io.weft.bayeux.Message;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * What the fault commands of bench/faults.sh share ({@code restart}, {@code storm}, {@code slow}, {@code proxy}; see
 * docs/benchmarks/faults.md). Each prints one {@code RESULT key=value ...} line per outcome, which the script stamps
 * and collects.
 */
final class Faults {
    private Faults() {
    }

    /** The room of client {@code index}. */
    static String room(int index, int rooms) {
        return "/fault/room" + (index % rooms);
    }

    /** Waits until {@code value} reaches {@code target} or {@code seconds} pass; returns the last value. */
    static int awaitCount(IntSupplier value, int target, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        int now = value.getAsInt();
        while (now < target && System.nanoTime() < deadline) {
            Thread.sleep(20);
            now = value.getAsInt();
        }
        return now;
    }

    /** Message data as a map, or an empty one. */
    static Map<String, Object> data(Message message) {
        Map<String, Object> data = message.getDataAsMap();
        return data == null ? Map.of() : data;
    }
}
