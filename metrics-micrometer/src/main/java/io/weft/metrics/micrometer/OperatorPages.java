package io.weft.metrics.micrometer;

import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Latency;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerStats;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What an operator polls, whatever serves it: {@code GET /metrics} (Prometheus text: {@link WeftMetrics} and the
 * JVM's memory, GC, threads and CPU), {@code GET /stats} (JSON: {@code getStats()}, the delivery latency's mean,
 * percentiles and standard deviation since start-up with its histogram's buckets, from which a reader takes the
 * latency between two of its readings, and message rates and latency over the interval since the previous
 * {@code /stats} of any reader), {@code GET /health} (200 while the server accepts handshakes, 503 as soon as the
 * Bayeux server drains, once it is closed, or once {@link #closing()} was called). {@link MetricsHandler} serves them on embedded Jetty;
 * on Netty, a {@code Fallback} that answers with {@link #get}. Thread-safe.
 */
public final class OperatorPages {
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String JSON = "application/json";

    private final BayeuxServer bayeux;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Object rates = new Object();
    private volatile boolean closing;
    private ServerStats previous;
    private long previousAt;

    public OperatorPages(BayeuxServer bayeux) {
        this.bayeux = Objects.requireNonNull(bayeux, "bayeux");
        new WeftMetrics(bayeux).bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
    }

    /** One page: its status, type and body. Served with {@code Cache-Control: no-store}. */
    public record Page(int status, String contentType, String body) {
    }

    /**
     * From now on {@code /health} answers 503: the server is about to stop (a balancer drains it). Not needed with
     * {@link BayeuxServer#drain} or {@link BayeuxServer#close()}, which {@code /health} follows by itself.
     */
    public void closing() {
        closing = true;
    }

    /** The page at {@code path} ({@code /metrics}, {@code /stats}, {@code /health}) for a GET, or null for another. */
    public Page get(String path) {
        return switch (path) {
            case "/metrics" -> new Page(200, PROMETHEUS_TEXT, registry.scrape());
            case "/stats" -> new Page(200, JSON, stats());
            case "/health" -> health();
            default -> null;
        };
    }

    /**
     * 200 while the server takes handshakes; 503 as soon as it drains ({@link BayeuxServer#drain}), so that a
     * balancer sends it no new clients while its sessions move, and once it is closed or {@link #closing()} was called.
     */
    private Page health() {
        if (closing || bayeux.isClosed()) {
            return new Page(503, JSON, "{\"status\":\"closing\"}");
        }
        if (bayeux.isDraining()) {
            return new Page(503, JSON, "{\"status\":\"draining\"}");
        }
        return new Page(200, JSON, "{\"status\":\"up\"}");
    }

    /** {@code getStats()} as JSON, with per-second rates over the interval since the previous call. */
    String stats() {
        ServerStats now = bayeux.getStats();
        long at = System.nanoTime();
        ServerStats before;
        long nanos;
        synchronized (rates) {
            before = previous;
            nanos = previous == null ? 0 : at - previousAt;
            previous = now;
            previousAt = at;
        }
        double interval = nanos / 1e9;
        StringBuilder json = new StringBuilder(512).append('{');
        field(json, "sessions", now.sessions()).append(',');
        map(json, "sessionsByConnectionType", now.sessionsByConnectionType()).append(',');
        field(json, "heldConnects", now.heldConnects()).append(',');
        field(json, "channels", now.channels()).append(',');
        field(json, "subscriptions", now.subscriptions()).append(',');
        field(json, "handshakesAccepted", now.handshakesAccepted()).append(',');
        map(json, "handshakesRefused", now.handshakesRefused()).append(',');
        field(json, "messagesReceived", now.messagesReceived()).append(',');
        field(json, "deliveries", now.deliveries()).append(',');
        map(json, "deliveriesByConnectionType", now.deliveriesByConnectionType()).append(',');
        map(json, "bytesWrittenByConnectionType", now.bytesWrittenByConnectionType()).append(',');
        field(json, "messagesEncoded", now.messagesEncoded()).append(',');
        map(json, "errorsByReason", now.errorsByReason()).append(',');
        field(json, "slowConsumerDisconnects", now.slowConsumerDisconnects()).append(',');
        field(json, "messagesResent", now.messagesResent()).append(',');
        json.append("\"history\":{");
        field(json, "channels", now.history().channels()).append(',');
        field(json, "messages", now.history().messages()).append(',');
        field(json, "bytes", now.history().bytes()).append(',');
        field(json, "recovered", now.history().recovered()).append(',');
        field(json, "notRecovered", now.history().notRecovered()).append(',');
        field(json, "messagesRecovered", now.history().messagesRecovered()).append(',');
        field(json, "failures", now.history().failures()).append("},");
        field(json, "sessionsDrained", now.sessionsDrained()).append(',');
        json.append("\"refusals\":{");
        boolean first = true;
        for (Map.Entry<Limit, Long> refusal : now.refusals().entrySet()) {
            json.append(first ? "" : ",");
            field(json, refusal.getKey().option(), refusal.getValue());
            first = false;
        }
        json.append("},");
        latency(json, "deliveryLatencyMillis", now.deliveryLatency()).append(',');
        histogram(json, now.deliveryLatency()).append(",\"interval\":{");
        if (before == null || interval <= 0) {
            json.append("\"seconds\":0");
        } else {
            json.append("\"seconds\":").append(round(interval)).append(",\"messagesReceivedPerSecond\":")
                    .append(round((now.messagesReceived() - before.messagesReceived()) / interval))
                    .append(",\"deliveriesPerSecond\":").append(round((now.deliveries() - before.deliveries()) / interval))
                    .append(",\"bytesWrittenPerSecond\":")
                    .append(round((now.bytesWritten() - before.bytesWritten()) / interval))
                    .append(",\"handshakesPerSecond\":")
                    .append(round((now.handshakesAccepted() - before.handshakesAccepted()) / interval)).append(',');
            latency(json, "deliveryLatencyMillis", now.deliveryLatency().since(before.deliveryLatency()));
        }
        return json.append("}}").toString();
    }

    private static StringBuilder latency(StringBuilder json, String name, Latency latency) {
        return string(json, name).append(":{\"count\":").append(latency.count())
                .append(",\"mean\":").append(latency.mean()).append(",\"p50\":").append(latency.p50())
                .append(",\"p90\":").append(latency.p90()).append(",\"p99\":").append(latency.p99())
                .append(",\"p999\":").append(latency.p999()).append(",\"max\":").append(latency.max())
                .append(",\"stddev\":").append(latency.stddev()).append('}');
    }

    /**
     * Reads back what {@code /stats} says of the delivery latency ({@code deliveryLatencyHistogram}, cumulative since
     * start-up), from the document decoded into maps and lists as any JSON library does: a reader of two documents
     * takes the latency between them with {@link Latency#since(Latency)}.
     *
     * @return the reading, or null when {@code stats} has none
     * @throws IllegalArgumentException when the histogram is there but not as this handler writes it
     */
    public static Latency deliveryLatency(Map<?, ?> stats) {
        if (!(stats.get("deliveryLatencyHistogram") instanceof Map<?, ?> histogram)) {
            return null;
        }
        try {
            return Latency.of(longs(histogram.get("upToMicros")), longs(histogram.get("counts")),
                    ((Number) histogram.get("sumMicros")).doubleValue(),
                    ((Number) histogram.get("sumOfSquaresMicros")).doubleValue(),
                    ((Number) histogram.get("maxMicros")).longValue());
        } catch (ClassCastException | NullPointerException x) {
            throw new IllegalArgumentException("not a deliveryLatencyHistogram of /stats: " + histogram, x);
        }
    }

    private static long[] longs(Object array) {
        return ((List<?>) array).stream().mapToLong(value -> ((Number) value).longValue()).toArray();
    }

    /** The latency's buckets, cumulative since start-up: a reader takes the difference of two readings. */
    private static StringBuilder histogram(StringBuilder json, Latency latency) {
        json.append("\"deliveryLatencyHistogram\":{\"upToMicros\":[");
        long[] bounds = latency.bucketBoundsMicros();
        long[] counts = latency.bucketCounts();
        for (int i = 0; i < bounds.length; i++) {
            json.append(i == 0 ? "" : ",").append(bounds[i]);
        }
        json.append("],\"counts\":[");
        for (int i = 0; i < counts.length; i++) {
            json.append(i == 0 ? "" : ",").append(counts[i]);
        }
        return json.append("],\"sumMicros\":").append((long) latency.sumMicros())
                .append(",\"sumOfSquaresMicros\":")
                .append(String.format(Locale.ROOT, "%.0f", latency.sumOfSquaresMicros()))
                .append(",\"maxMicros\":").append(latency.maxMicros()).append('}');
    }

    private static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }

    private static StringBuilder field(StringBuilder json, String name, long value) {
        return string(json, name).append(':').append(value);
    }

    private static StringBuilder map(StringBuilder json, String name, Map<String, ? extends Number> values) {
        string(json, name).append(":{");
        boolean first = true;
        for (Map.Entry<String, ? extends Number> entry : values.entrySet()) {
            json.append(first ? "" : ",");
            string(json, entry.getKey()).append(':').append(entry.getValue().longValue());
            first = false;
        }
        return json.append('}');
    }

    /** A JSON string: reasons may come from an application's authorizer, so everything is escaped. */
    private static StringBuilder string(StringBuilder json, String text) {
        json.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                json.append('\\').append(c);
            } else if (c < 0x20) {
                json.append(String.format("\\u%04x", (int) c));
            } else {
                json.append(c);
            }
        }
        return json.append('"');
    }
}
