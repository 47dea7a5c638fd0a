package io.weft.server.internal.stats;

import io.weft.bayeux.Message;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Latency;
import io.weft.server.internal.util.Refusals;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the server has done since it started, counted where it passes one place: batches in ({@link #received}),
 * messages out ({@link #written}, where every reply and delivery goes to a connection, and where a delivery's latency
 * since its publish is recorded), bytes the transports encoded for them ({@link #bytesWritten}), sessions ended for a full queue, messages re-sent for the ack extension. Each count is a {@link LongAdder} increment, cheap on any thread;
 * refusals past a bound are {@link Refusals}. Read through {@code BayeuxServer.getStats()}.
 */
public final class Counters {
    /** Distinct error or refusal reasons kept apart; any more are summed under {@link #OTHER}. */
    static final int MAX_REASONS = 64;
    static final String OTHER = "other";
    private static final String HANDSHAKE = Message.META_HANDSHAKE;

    private final LongAdder received = new LongAdder();
    private final LongAdder handshakesAccepted = new LongAdder();
    private final ConcurrentHashMap<String, LongAdder> handshakesRefused = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, LongAdder> delivered = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, LongAdder> bytesWritten = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, LongAdder> errors = new ConcurrentHashMap<>();
    private final LongAdder slowConsumers = new LongAdder();
    private final LongAdder resent = new LongAdder();
    private final LongAdder drained = new LongAdder();
    private final LatencyRecorder deliveryLatency = new LatencyRecorder();

    /** A batch from a client: its messages that are not {@code /meta/*}, publishes and service requests. */
    public void received(List<? extends Message> batch) {
        int messages = 0;
        for (Message message : batch) {
            if (!message.isMeta()) {
                messages++;
            }
        }
        if (messages > 0) {
            received.add(messages);
        }
    }

    /**
     * Messages handed to a connection of type {@code connectionType} to write: replies (they carry
     * {@code successful}) count as handshakes accepted or refused and as errors by reason; the rest are deliveries.
     */
    public void written(String connectionType, List<? extends Message> messages) {
        int deliveries = 0;
        long now = 0;
        for (Message message : messages) {
            Object successful = message.get(Message.SUCCESSFUL);
            if (successful == null) {
                deliveries++;
                if (message instanceof MessageImpl published && published.publishedAt() != 0) {
                    if (now == 0) {
                        now = System.nanoTime();
                    }
                    deliveryLatency.record((now - published.publishedAt()) / 1000);
                }
                continue;
            }
            boolean handshake = HANDSHAKE.equals(message.getChannel());
            if (Boolean.TRUE.equals(successful)) {
                if (handshake) {
                    handshakesAccepted.increment();
                }
                continue;
            }
            String reason = reason(message.get(Message.ERROR));
            add(errors, reason, 1);
            if (handshake) {
                add(handshakesRefused, reason, 1);
            }
        }
        if (deliveries > 0) {
            add(delivered, connectionType == null ? OTHER : connectionType, deliveries);
        }
    }

    /** A transport encoded {@code bytes} to write on a connection of type {@code connectionType}. */
    public void bytesWritten(String connectionType, long bytes) {
        if (bytes > 0) {
            add(bytesWritten, connectionType == null ? OTHER : connectionType, bytes);
        }
    }

    /** A session ended because its queue was full ({@code queueOverflow = DISCONNECT}). */
    public void slowConsumer() {
        slowConsumers.increment();
    }

    /** A session ended by a drain: its client was told to handshake again, elsewhere. */
    public void sessionDrained() {
        drained.increment();
    }

    public long drained() {
        return drained.sum();
    }

    /** Messages put back in a queue to be sent again (the ack extension, after a lost batch). */
    public void resent(int messages) {
        resent.add(messages);
    }

    /**
     * The reason of a Bayeux error without its arguments ({@code 402::session_unknown}, {@code 403::denied}); error
     * texts are the server's own, but an application's authorizer may make its own: past {@link #MAX_REASONS} distinct
     * ones, they are summed as {@link #OTHER}.
     */
    private static String reason(Object error) {
        if (!(error instanceof String text) || text.isEmpty()) {
            return "unknown";
        }
        int first = text.indexOf(':');
        int second = first < 0 ? -1 : text.indexOf(':', first + 1);
        return first < 0 || second < 0 ? text : text.substring(0, first) + "::" + text.substring(second + 1);
    }

    private static void add(ConcurrentHashMap<String, LongAdder> counts, String key, long amount) {
        LongAdder count = counts.get(key);
        if (count == null) {
            count = counts.size() >= MAX_REASONS ? counts.computeIfAbsent(OTHER, k -> new LongAdder())
                    : counts.computeIfAbsent(key, k -> new LongAdder());
        }
        count.add(amount);
    }

    public long received() {
        return received.sum();
    }

    public long handshakesAccepted() {
        return handshakesAccepted.sum();
    }

    public Map<String, Long> handshakesRefused() {
        return snapshot(handshakesRefused);
    }

    public Map<String, Long> delivered() {
        return snapshot(delivered);
    }

    public Map<String, Long> bytesWritten() {
        return snapshot(bytesWritten);
    }

    public Map<String, Long> errors() {
        return snapshot(errors);
    }

    public long slowConsumers() {
        return slowConsumers.sum();
    }

    public long resent() {
        return resent.sum();
    }

    public Latency deliveryLatency() {
        return deliveryLatency.snapshot();
    }

    private static Map<String, Long> snapshot(ConcurrentHashMap<String, LongAdder> counts) {
        TreeMap<String, Long> copy = new TreeMap<>();
        counts.forEach((key, count) -> copy.put(key, count.sum()));
        return Collections.unmodifiableMap(copy);
    }
}
