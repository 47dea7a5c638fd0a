package io.weft.client;

import java.util.Map;

/**
 * What the server advised, merged over what it advised before: a reply's {@code advice} changes only the fields it
 * carries. Immutable.
 *
 * @param reconnect {@code retry}, {@code handshake} or {@code none}
 * @param interval how long to wait before the next {@code /meta/connect}, in milliseconds
 * @param timeout how long the server may hold a {@code /meta/connect}, in milliseconds
 * @param maxInterval how long the server keeps a session without a {@code /meta/connect}, in milliseconds
 */
record Advice(String reconnect, long interval, long timeout, long maxInterval) {
    static final String RETRY = "retry";
    static final String HANDSHAKE = "handshake";
    static final String NONE = "none";

    /** Before the server said anything: the protocol's defaults. */
    static final Advice INITIAL = new Advice(RETRY, 0, 30_000, 10_000);

    /** This advice with the fields {@code advice} carries replaced; {@code advice} may be null. */
    Advice merge(Map<String, Object> advice) {
        if (advice == null) {
            return this;
        }
        Object reconnectValue = advice.get("reconnect");
        return new Advice(
                reconnectValue instanceof String s ? s : reconnect,
                number(advice.get("interval"), interval),
                number(advice.get("timeout"), timeout),
                number(advice.get("maxInterval"), maxInterval));
    }

    /** The reconnect advice of one reply, falling back to this advice's. */
    String reconnectOf(Map<String, Object> advice) {
        Object value = advice == null ? null : advice.get("reconnect");
        return value instanceof String s ? s : reconnect;
    }

    private static long number(Object value, long fallback) {
        return value instanceof Number n && n.longValue() >= 0 ? n.longValue() : fallback;
    }
}
