package io.weft.metrics.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.netty.Fallback;
import io.weft.transport.netty.WeftNetty;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The operator's pages on the Netty mount, beside Bayeux, with the application's fallback behind them. */
@Timeout(30)
class MetricsFallbackTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private BayeuxServer bayeux;
    private WeftNetty netty;
    private MetricsFallback metrics;

    @BeforeEach
    void start() throws Exception {
        bayeux = BayeuxServer.create(ServerOptions.defaults());
        metrics = new MetricsFallback(bayeux, Fallback.NOT_FOUND);
        netty = WeftNetty.on(bayeux).host("127.0.0.1").port(0).fallback(metrics).start();
    }

    @AfterEach
    void stop() {
        netty.close();
        bayeux.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + netty.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void healthStatsAndMetricsAreServedAndTheRestGoesOn() throws Exception {
        assertEquals(200, get("/health").statusCode());
        HttpResponse<String> scrape = get("/metrics");
        assertEquals(200, scrape.statusCode());
        assertTrue(scrape.body().contains("weft_sessions"), "Weft's meters in the scrape");
        assertTrue(get("/stats").body().contains("\"deliveryLatencyHistogram\""));
        assertEquals(404, get("/elsewhere").statusCode(), "the next fallback");
        metrics.closing();
        assertEquals(503, get("/health").statusCode(), "draining: the balancer stops sending clients");
    }

    @Test
    void healthFollowsADrainOfTheBayeuxServer() throws Exception {
        assertEquals(200, get("/health").statusCode());
        bayeux.drain(Duration.ofMinutes(1));
        HttpResponse<String> health = get("/health");
        assertEquals(503, health.statusCode());
        assertEquals("{\"status\":\"draining\"}", health.body());
    }
}
