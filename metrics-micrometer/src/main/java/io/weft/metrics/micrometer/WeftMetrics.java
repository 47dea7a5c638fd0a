package io.weft.metrics.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerStats;
import java.time.Duration;
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
 * {@code weft_slow_consumers_total}, {@code weft_messages_resent_total}, {@code weft_refusals_total{limit}}, and the
 * delivery latency since start-up: {@code weft_delivery_latency_seconds{quantile}} (0.5 to 1.0, the maximum),
 * {@code weft_delivery_latency_mean_seconds}, {@code weft_delivery_latency_count_total}. Connection
 * types and limits are fixed sets, so no meter appears after binding; the errors by reason are in
 * {@code getStats().errorsByReason()}.
 *
 * <p>Reading the meters takes one stats snapshot, reused for {@code maxAge} (1 s by default), so that a scrape that
 * reads every meter walks the sessions once.
 */
public final class WeftMetrics implements MeterBinder {
    /** The connection types Weft's transports report, and {@code local} (server-side sessions), {@code none}. */
    static final List<String> CONNECTION_TYPES = List.of("websocket", "long-polling", "callback-polling", "local",
            "none");

    private final BayeuxServer server;
    private final Tags tags;
    private final long maxAgeNanos;
    private volatile Snapshot cached;

    private record Snapshot(ServerStats stats, long takenAt) {
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
        long now = System.nanoTime();
        Snapshot snapshot = cached;
        if (snapshot == null || now - snapshot.takenAt() >= maxAgeNanos) {
            snapshot = new Snapshot(server.getStats(), now);
            cached = snapshot;
        }
        return snapshot.stats();
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
        counter(registry, "weft.slow.consumers", "sessions ended because their queue was full",
                ServerStats::slowConsumerDisconnects, Tags.empty());
        counter(registry, "weft.messages.resent", "messages queued again for the ack extension",
                ServerStats::messagesResent, Tags.empty());
        latency(registry, "0.5", ServerStats.Latency::p50);
        latency(registry, "0.9", ServerStats.Latency::p90);
        latency(registry, "0.99", ServerStats.Latency::p99);
        latency(registry, "0.999", ServerStats.Latency::p999);
        latency(registry, "1.0", ServerStats.Latency::max);
        gauge(registry, "weft.delivery.latency.mean.seconds", "mean time from publish to a delivery's write",
                stats -> stats.deliveryLatency().mean() / 1000, Tags.empty());
        counter(registry, "weft.delivery.latency.count", "deliveries whose latency was recorded",
                stats -> stats.deliveryLatency().count(), Tags.empty());
        for (Limit limit : Limit.values()) {
            counter(registry, "weft.refusals", "refusals past a bound (the limit is its option's name)",
                    stats -> stats.refusals().getOrDefault(limit, 0L), Tags.of("limit", limit.option()));
        }
    }

    private void latency(MeterRegistry registry, String quantile, ToDoubleFunction<ServerStats.Latency> millis) {
        gauge(registry, "weft.delivery.latency.seconds", "time from publish to a delivery's write, since start-up",
                stats -> millis.applyAsDouble(stats.deliveryLatency()) / 1000, Tags.of("quantile", quantile));
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
