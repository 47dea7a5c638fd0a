package io.weft.metrics.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Latency;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerStats;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Binds a Weft server's {@link BayeuxServer#getStats() stats} to a Micrometer {@link MeterRegistry}: with the
 * Prometheus registry they are scraped as {@code weft_*} metrics, with the JMX or OTLP registry they go there, and a
 * Spring Boot application gets them in its actuator by declaring this binder as a bean.
 *
 * <pre>
 * new WeftMetrics(bayeux).bindTo(registry);
 * </pre>
 *
 * <p>Meters (Prometheus names): gauges {@code weft_sessions{connection_type}}, {@code weft_connects_held},
 * {@code weft_channels}, {@code weft_subscriptions}; counters {@code weft_handshakes_total{outcome}},
 * {@code weft_messages_received_total}, {@code weft_deliveries_total{connection_type}}, {@code weft_errors_total},
 * {@code weft_slow_consumers_total}, {@code weft_messages_resent_total}, {@code weft_refusals_total{limit}},
 * {@code weft_written_bytes_total{connection_type}}, {@code weft_messages_encoded_total}; the delivery latency over the last minute (as Micrometer's own
 * timers decay theirs): {@code weft_delivery_latency_seconds{quantile}} (0.5 to 0.999, and 1.0 for the maximum),
 * {@code weft_delivery_latency_mean_seconds}; and the deliveries whose latency was recorded since start-up,
 * {@code weft_delivery_latency_count_total}. Connection types and limits are fixed sets, so no meter appears after
 * binding; the errors by reason are in {@code getStats().errorsByReason()}.
 *
 * <p>Reading the meters takes one stats snapshot, reused for {@code maxAge} (1 s by default), so that a scrape that
 * reads every meter walks the sessions once. The latency of the last minute is the latest reading less the newest one
 * at least a minute old ({@link Latency#since}); readings are kept one per second at most.
 */
public final class WeftMetrics implements MeterBinder {
    /** The connection types Weft's transports report, and {@code local} (server-side sessions), {@code none}. */
    static final List<String> CONNECTION_TYPES = List.of("websocket", "long-polling", "callback-polling", "eventsource",
            "local", "none");

    /** How far back the latency meters look. */
    static final Duration WINDOW = Duration.ofMinutes(1);
    private static final long WINDOW_NANOS = WINDOW.toNanos();
    private static final long READING_EVERY_NANOS = 1_000_000_000L;

    private final BayeuxServer server;
    private final Tags tags;
    private final long maxAgeNanos;
    /** Latency readings, oldest first: the head is the newest one at least {@link #WINDOW} old, once there is one. */
    private final ArrayDeque<Reading> readings = new ArrayDeque<>();
    private volatile Snapshot cached;

    private record Snapshot(ServerStats stats, Latency lastMinute, long takenAt) {
    }

    private record Reading(Latency latency, long takenAt) {
    }

    /** A binder for {@code server}, with no extra tags and snapshots reused for 1 s. */
    public WeftMetrics(BayeuxServer server) {
        this(server, Tags.empty(), Duration.ofSeconds(1));
    }

    /**
     * @param tags added to every meter (the node's name in a cluster, say)
     * @param maxAge how long one stats snapshot serves the meters' readings (zero: a snapshot per reading)
     */
    public WeftMetrics(BayeuxServer server, Iterable<Tag> tags, Duration maxAge) {
        this.server = Objects.requireNonNull(server, "server");
        this.tags = Tags.of(tags);
        this.maxAgeNanos = maxAge.toNanos();
    }

    ServerStats stats() {
        return snapshot().stats();
    }

    /** The delivery latency over the last {@link #WINDOW} (or since start-up, in the first one). */
    Latency lastMinute() {
        return snapshot().lastMinute();
    }

    private Snapshot snapshot() {
        long now = System.nanoTime();
        Snapshot snapshot = cached;
        if (snapshot == null || now - snapshot.takenAt() >= maxAgeNanos) {
            synchronized (readings) {
                snapshot = cached;
                if (snapshot == null || now - snapshot.takenAt() >= maxAgeNanos) {
                    ServerStats stats = server.getStats();
                    snapshot = new Snapshot(stats, window(stats.deliveryLatency(), now), now);
                    cached = snapshot;
                }
            }
        }
        return snapshot;
    }

    /** {@code latest} less the newest reading at least a minute old; keeps {@code latest} as a reading. */
    Latency window(Latency latest, long now) {
        synchronized (readings) {
            Reading last = readings.peekLast();
            if (last == null || now - last.takenAt() >= READING_EVERY_NANOS) {
                readings.addLast(new Reading(latest, now));
            }
            while (readings.size() > 1) {
                Iterator<Reading> oldest = readings.iterator();
                oldest.next();
                if (now - oldest.next().takenAt() < WINDOW_NANOS) {
                    break;
                }
                readings.pollFirst();
            }
            Reading base = readings.peekFirst();
            return base == null || now - base.takenAt() < WINDOW_NANOS ? latest : latest.since(base.latency());
        }
    }

    int readings() {
        synchronized (readings) {
            return readings.size();
        }
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (String type : CONNECTION_TYPES) {
            gauge(registry, "weft.sessions", "live sessions by the connection type they last used",
                    stats -> stats.sessionsByConnectionType().getOrDefault(type, 0), Tags.of("connection_type", type));
            counter(registry, "weft.deliveries", "messages (not replies) handed to connections to write",
                    stats -> stats.deliveriesByConnectionType().getOrDefault(type, 0L),
                    Tags.of("connection_type", type));
        }
        // the bound the sessions gauge is read against (an alert at 90 % of it): an option, read from the server
        Gauge.builder("weft.sessions.limit", server, bayeux -> bayeux.getOptions().maxSessions())
                .description("maxSessions: how many client sessions may be live at once")
                .tags(tags).register(registry);
        gauge(registry, "weft.connects.held", "/meta/connect requests held open now",
                ServerStats::heldConnects, Tags.empty());
        gauge(registry, "weft.channels", "channels in the channel tree", ServerStats::channels,
                Tags.empty());
        gauge(registry, "weft.subscriptions", "subscriptions of all sessions",
                ServerStats::subscriptions, Tags.empty());
        counter(registry, "weft.handshakes", "handshake replies written to clients",
                ServerStats::handshakesAccepted, Tags.of("outcome", "accepted"));
        counter(registry, "weft.handshakes", "handshake replies written to clients",
                stats -> sum(stats.handshakesRefused()), Tags.of("outcome", "refused"));
        counter(registry, "weft.messages.received", "messages from clients other than /meta/*",
                ServerStats::messagesReceived, Tags.empty());
        counter(registry, "weft.errors", "unsuccessful replies written to clients",
                stats -> sum(stats.errorsByReason()), Tags.empty());
        counter(registry, "weft.messages.encoded", "messages encoded to JSON (a broadcast once, whatever its fan-out)",
                ServerStats::messagesEncoded, Tags.empty());
        counter(registry, "weft.slow.consumers", "sessions ended because their queue was full",
                ServerStats::slowConsumerDisconnects, Tags.empty());
        counter(registry, "weft.messages.resent", "messages queued again for the ack extension",
                ServerStats::messagesResent, Tags.empty());
        gauge(registry, "weft.history.channels", "channels keeping a history in this node's memory",
                stats -> stats.history().channels(), Tags.empty());
        gauge(registry, "weft.history.messages", "publications kept in this node's memory",
                stats -> stats.history().messages(), Tags.empty());
        gauge(registry, "weft.history.bytes", "encoded bytes of the publications kept in this node's memory",
                stats -> stats.history().bytes(), Tags.empty());
        counter(registry, "weft.recoveries", "channels subscriptions asked to recover, by whether all was",
                stats -> stats.history().recovered(), Tags.of("outcome", "recovered"));
        counter(registry, "weft.recoveries", "channels subscriptions asked to recover, by whether all was",
                stats -> stats.history().notRecovered(), Tags.of("outcome", "not_recovered"));
        counter(registry, "weft.recovered.messages", "publications delivered by recoveries",
                stats -> stats.history().messagesRecovered(), Tags.empty());
        counter(registry, "weft.history.failures", "publishes and reads the cluster's history store failed",
                stats -> stats.history().failures(), Tags.empty());
        counter(registry, "weft.sessions.drained", "sessions a drain ended, their clients sent to another node",
                ServerStats::sessionsDrained, Tags.empty());
        for (String type : CONNECTION_TYPES) {
            counter(registry, "weft.written.bytes", "bytes of responses and frames encoded to write",
                    stats -> stats.bytesWrittenByConnectionType().getOrDefault(type, 0L),
                    Tags.of("connection_type", type));
        }
        latency(registry, "0.5", Latency::p50);
        latency(registry, "0.9", Latency::p90);
        latency(registry, "0.99", Latency::p99);
        latency(registry, "0.999", Latency::p999);
        latency(registry, "1.0", Latency::max);
        Gauge.builder("weft.delivery.latency.mean.seconds", server, bayeux -> lastMinute().mean() / 1000)
                .description("mean time from publish to a delivery's write, over the last minute")
                .tags(tags).register(registry);
        counter(registry, "weft.delivery.latency.count", "deliveries whose latency was recorded",
                stats -> stats.deliveryLatency().count(), Tags.empty());
        for (Limit limit : Limit.values()) {
            counter(registry, "weft.refusals", "refusals past a bound (the limit is its option's name)",
                    stats -> stats.refusals().getOrDefault(limit, 0L), Tags.of("limit", limit.option()));
        }
    }

    private void latency(MeterRegistry registry, String quantile, ToDoubleFunction<Latency> millis) {
        Gauge.builder("weft.delivery.latency.seconds", server, bayeux -> millis.applyAsDouble(lastMinute()) / 1000)
                .description("time from publish to a delivery's write, over the last minute")
                .tags(tags.and("quantile", quantile)).register(registry);
    }

    /*
     * Micrometer holds a meter's object weakly: the object is the server (the application holds it; once it is gone,
     * the meters read NaN), and the functions, held strongly, hold this binder. Counts have no base unit (Prometheus
     * keeps units for seconds, bytes and the like).
     */

    private void gauge(MeterRegistry registry, String name, String description, ToDoubleFunction<ServerStats> value,
            Tags extra) {
        Gauge.builder(name, server, bayeux -> value.applyAsDouble(stats()))
                .description(description).tags(tags.and(extra)).register(registry);
    }

    private void counter(MeterRegistry registry, String name, String description, ToDoubleFunction<ServerStats> value,
            Tags extra) {
        FunctionCounter.builder(name, server, bayeux -> value.applyAsDouble(stats()))
                .description(description).tags(tags.and(extra)).register(registry);
    }

    private static long sum(Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }
}
