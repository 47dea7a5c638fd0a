package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SeenTest {
    private final Seen seen = new Seen();

    private boolean first(String origin, long number) {
        Seen.Window window = seen.of(origin);
        synchronized (window) {
            return window.first(number);
        }
    }

    @Test
    void eachNumberOfEachNodeIsFirstOnceInWhateverOrderItsCopiesCome() {
        assertTrue(first("a", 5));
        assertTrue(first("a", 3), "an earlier publish, from a shard that lags: not a copy");
        assertTrue(first("b", 3), "another node's numbers are its own");
        assertFalse(first("a", 5));
        assertFalse(first("a", 3));
        assertTrue(first("a", 4));
        assertTrue(first("a", 6));
        assertFalse(first("a", 4));
    }

    @Test
    void numbersThatReenterTheWindowAreForgottenAndThoseOlderThanItAreDelivered() {
        assertTrue(first("a", 1));
        assertTrue(first("a", 2 + Seen.WINDOW), "a long way ahead: the window starts again");
        assertTrue(first("a", 1), "older than the window: delivered, not taken for a copy");
        long high = 2 + Seen.WINDOW;
        assertTrue(first("a", high - 10));
        assertTrue(first("a", high + 100));
        assertFalse(first("a", high - 10), "still in the window after it moved by 100");
        assertTrue(first("a", high + 50), "skipped over, then came: its bit was cleared when the window moved");
        assertFalse(first("a", high + 50));
    }
}
