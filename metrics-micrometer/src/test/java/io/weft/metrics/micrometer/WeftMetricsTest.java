package io.weft.metrics.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Latency;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import io.weft.server.testing.SocketClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The binder with Micrometer's Prometheus registry: after a scripted conversation the scrape shows what
 * {@code getStats()} counted, under Prometheus names ({@code weft_} prefix, {@code _total} counters), and parses as
 * Prometheus text.
 */
class WeftMetricsTest {
    /** {@code name{labels} value}, one sample per line of the text format. */
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})? (\\S+)$");
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), new ManualScheduler());
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    @AfterEach
    void close() {
        registry.close();
        server.close();
    }

    /** Every sample of a scrape, {@code name{labels}} to value; fails on a line that is not Prometheus text. */
    private Map<String, Double> scrape() {
        Map<String, Double> samples = new HashMap<>();
        for (String line : registry.scrape().split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher sample = SAMPLE.matcher(line);
            assertTrue(sample.matches(), "not a Prometheus sample: " + line);
            samples.put(sample.group(1) + (sample.group(2) == null ? "" : sample.group(2)),
                    Double.parseDouble(sample.group(3)));
        }
        return samples;
    }

    @Test
    void aScrapeShowsWhatTheServerDid() {
        new WeftMetrics(server, Tags.of("node", "n1"), Duration.ZERO).bindTo(registry);
        ScriptedClient alice = ScriptedClient.connected(server, "alice");
        alice.subscribe("/news");
        SocketClient bob = new SocketClient(InMemoryTransport.websocket(server), "bob");
        bob.handshake();
        bob.connect();
        bob.subscribe("/news");
        ScriptedClient carol = ScriptedClient.connected(server, "carol");
        carol.publishJson("/news", "\"hi\"");
        ScriptedClient stranger = ScriptedClient.of(server, "stranger");
        stranger.resume("nobody");
        stranger.publishJson("/news", "1");

        Map<String, Double> samples = scrape();
        assertEquals(3.0, samples.get("weft_handshakes_total{node=\"n1\",outcome=\"accepted\"}"), samples.toString());
        assertEquals(0.0, samples.get("weft_handshakes_total{node=\"n1\",outcome=\"refused\"}"));
        assertEquals(2.0, samples.get("weft_sessions{connection_type=\"long-polling\",node=\"n1\"}"));
        assertEquals(1.0, samples.get("weft_sessions{connection_type=\"websocket\",node=\"n1\"}"));
        assertEquals(0.0, samples.get("weft_sessions{connection_type=\"eventsource\",node=\"n1\"}"),
                "every connection type has its gauge, eventsource's too: " + samples);
        assertEquals(2.0, samples.get("weft_subscriptions{node=\"n1\"}"));
        assertEquals((double) server.getOptions().maxSessions(), samples.get("weft_sessions_limit{node=\"n1\"}"),
                "the bound the sessions are read against");
        assertEquals(2.0, samples.get("weft_messages_received_total{node=\"n1\"}"), "carol's and the stranger's");
        assertEquals(1.0, samples.get("weft_deliveries_total{connection_type=\"websocket\",node=\"n1\"}"),
                "bob's socket pushed hi; alice has no poll held to take it yet");
        assertEquals(1.0, samples.get("weft_errors_total{node=\"n1\"}"), "the stranger's 402");
        assertEquals(0.0, samples.get("weft_refusals_total{limit=\"maxQueue\",node=\"n1\"}"));
        assertEquals(1.0, samples.get("weft_delivery_latency_count_total{node=\"n1\"}"));
        assertTrue(samples.get("weft_delivery_latency_seconds{node=\"n1\",quantile=\"0.99\"}") >= 0, samples.toString());
        assertEquals((double) server.getStats().bytesWrittenByConnectionType().get("websocket"),
                samples.get("weft_written_bytes_total{connection_type=\"websocket\",node=\"n1\"}"));
        assertTrue(samples.get("weft_written_bytes_total{connection_type=\"long-polling\",node=\"n1\"}") > 0);
        for (String name : samples.keySet()) {
            assertTrue(name.startsWith("weft_"), name);
        }
    }

    @Test
    void theMetersKeepWorkingWhenNobodyHoldsTheBinder() throws InterruptedException {
        new WeftMetrics(server, Tags.empty(), Duration.ZERO).bindTo(registry);
        ScriptedClient.connected(server, "a");
        for (int i = 0; i < 3; i++) {
            System.gc(); // Micrometer holds meters' objects weakly: a binder held by nothing else would be collected
        }
        Map<String, Double> samples = scrape();
        assertEquals(1.0, samples.get("weft_sessions{connection_type=\"long-polling\"}"), samples.toString());
        assertEquals(1.0, samples.get("weft_handshakes_total{outcome=\"accepted\"}"));
    }

    @Test
    void oneSnapshotServesTheMetersForMaxAge() {
        WeftMetrics metrics = new WeftMetrics(server, Tags.empty(), Duration.ofHours(1));
        metrics.bindTo(registry);
        assertEquals(0.0, scrape().get("weft_handshakes_total{outcome=\"accepted\"}"));
        ScriptedClient.connected(server, "late");
        assertEquals(0.0, scrape().get("weft_handshakes_total{outcome=\"accepted\"}"), "the snapshot is reused");
        assertEquals(1, server.getStats().handshakesAccepted());
    }

    @Test
    void theLatencyMetersCoverTheLastMinute() {
        WeftMetrics metrics = new WeftMetrics(server);
        long second = 1_000_000_000L;
        Latency slow = Latency.of(new long[] {100_000}, new long[] {10}, 1_000_000, 1e11, 100_000);
        assertEquals(slow, metrics.window(slow, 0), "the first minute: everything so far");
        assertEquals(slow, metrics.window(slow, 30 * second));
        Latency slowThenFast = Latency.of(new long[] {100, 100_000}, new long[] {5, 10}, 1_000_500, 1e11 + 50_000,
                100_000);
        Latency lastMinute = metrics.window(slowThenFast, 61 * second);
        assertEquals(5, lastMinute.count(), "the reading at 0 s is a minute old: what came since");
        assertEquals(0.1, lastMinute.max());
        assertEquals(slowThenFast.since(slow), metrics.window(slowThenFast, 89 * second),
                "the reading at 30 s is not a minute old yet");
        assertEquals(Latency.none(), metrics.window(slowThenFast, 125 * second), "nothing since the one at 61 s");
        for (int i = 1; i <= 1000; i++) {
            metrics.window(slowThenFast, (1250 + i) * second / 10);
        }
        assertTrue(metrics.readings() <= 62, "a reading a second at most, a minute of them: " + metrics.readings());
    }
}
