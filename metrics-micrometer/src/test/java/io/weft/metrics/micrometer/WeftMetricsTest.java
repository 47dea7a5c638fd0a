package io.weft.metrics.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.PollingClient;
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
        PollingClient alice = PollingClient.connected(server, "alice");
        alice.subscribe("/news");
        SocketClient bob = new SocketClient(InMemoryTransport.websocket(server), "bob");
        bob.handshake();
        bob.connect();
        bob.subscribe("/news");
        PollingClient carol = PollingClient.connected(server, "carol");
        carol.publish("/news", "\"hi\"");
        PollingClient stranger = PollingClient.of(server, "stranger");
        stranger.useClientId("nobody");
        stranger.publish("/news", "1");

        Map<String, Double> samples = scrape();
        assertEquals(3.0, samples.get("weft_handshakes_total{node=\"n1\",outcome=\"accepted\"}"), samples.toString());
        assertEquals(0.0, samples.get("weft_handshakes_total{node=\"n1\",outcome=\"refused\"}"));
        assertEquals(2.0, samples.get("weft_sessions{connection_type=\"long-polling\",node=\"n1\"}"));
        assertEquals(1.0, samples.get("weft_sessions{connection_type=\"websocket\",node=\"n1\"}"));
        assertEquals(2.0, samples.get("weft_subscriptions{node=\"n1\"}"));
        assertEquals(2.0, samples.get("weft_messages_received_total{node=\"n1\"}"), "carol's and the stranger's");
        assertEquals(1.0, samples.get("weft_deliveries_total{connection_type=\"websocket\",node=\"n1\"}"),
                "bob's socket pushed hi; alice has no poll held to take it yet");
        assertEquals(1.0, samples.get("weft_errors_total{node=\"n1\"}"), "the stranger's 402");
        assertEquals(0.0, samples.get("weft_refusals_total{limit=\"maxQueue\",node=\"n1\"}"));
        assertEquals(1.0, samples.get("weft_delivery_latency_count_total{node=\"n1\"}"));
        assertTrue(samples.get("weft_delivery_latency_seconds{node=\"n1\",quantile=\"0.99\"}") >= 0, samples.toString());
        for (String name : samples.keySet()) {
            assertTrue(name.startsWith("weft_"), name);
        }
    }

    @Test
    void theMetersKeepWorkingWhenNobodyHoldsTheBinder() throws InterruptedException {
        new WeftMetrics(server, Tags.empty(), Duration.ZERO).bindTo(registry);
        PollingClient.connected(server, "a");
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
        PollingClient.connected(server, "late");
        assertEquals(0.0, scrape().get("weft_handshakes_total{outcome=\"accepted\"}"), "the snapshot is reused");
        assertEquals(1, server.getStats().handshakesAccepted());
    }
}
