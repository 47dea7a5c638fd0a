package io.weft.server.internal.reply;

import io.weft.bayeux.Message;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a reply tells the client to do next, as the official clients read a reply's {@code advice}: how to reconnect
 * ({@code retry} with the same session, {@code handshake} for a new one, {@code none}: stop), after how long
 * ({@code interval}, ms), how long a {@code /meta/connect} is held ({@code timeout}, ms, only with {@code retry}),
 * and whether the browser has too many polls held ({@code multiple-clients}). A value; {@link #applyTo} writes it.
 *
 * @param timeout null: not given
 * @param multipleClients whether to add {@code multiple-clients: true}
 */
public record Advice(Reconnect reconnect, long interval, Long timeout, boolean multipleClients) {
    /** The wire field names. */
    public static final String RECONNECT = "reconnect";
    public static final String INTERVAL = "interval";
    public static final String TIMEOUT = "timeout";
    public static final String MULTIPLE_CLIENTS = "multiple-clients";
    /** Stop: the session is gone for good, or the client was refused for good. */
    public static final Advice NONE = new Advice(Reconnect.NONE, 0, null, false);
    /** Handshake again at once: the session is unknown or ended, here or on another node. */
    public static final Advice HANDSHAKE_NOW = handshake(0);

    /** The reconnect values Bayeux defines. */
    public enum Reconnect {
        RETRY("retry"),
        HANDSHAKE("handshake"),
        NONE("none");

        private final String wire;

        Reconnect(String wire) {
            this.wire = wire;
        }

        public String wire() {
            return wire;
        }
    }

    /** Keep the session: connect again after {@code interval}, to be held up to {@code timeout}. */
    public static Advice retry(long interval, long timeout) {
        return new Advice(Reconnect.RETRY, interval, timeout, false);
    }

    /** Handshake again after {@code interval}. */
    public static Advice handshake(long interval) {
        return new Advice(Reconnect.HANDSHAKE, interval, null, false);
    }

    /**
     * What to add to a connect reply when the browser has too many polls held: poll again after {@code interval}
     * without being held.
     */
    public static Advice multipleClients(long interval) {
        return new Advice(Reconnect.RETRY, interval, null, true);
    }

    /**
     * Writes this advice into {@code reply}'s, over what is there: a connect reply built with its session's
     * {@code retry} advice can be told {@code handshake} or {@code multiple-clients} when it leaves.
     */
    public void applyTo(Message.Mutable reply) {
        Map<String, Object> advice = reply.getAdvice(true);
        if (reconnect != Reconnect.RETRY) {
            advice.remove(TIMEOUT); // a hold time means nothing once the client is told to stop or handshake
        }
        advice.putAll(toMap());
    }

    /** A new advice map of this value, for a reply that has none yet. */
    public Map<String, Object> toMap() {
        Map<String, Object> advice = new LinkedHashMap<>(4);
        advice.put(RECONNECT, reconnect.wire());
        advice.put(INTERVAL, interval);
        if (timeout != null) {
            advice.put(TIMEOUT, timeout);
        }
        if (multipleClients) {
            advice.put(MULTIPLE_CLIENTS, true);
        }
        return advice;
    }
}
