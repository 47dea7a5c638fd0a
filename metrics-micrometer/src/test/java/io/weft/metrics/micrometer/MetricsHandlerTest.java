package io.weft.metrics.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Latency;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.ScriptedClient;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code /metrics}, {@code /stats} and {@code /health} on a real Jetty (127.0.0.1, port 0), and everything else passed on. */
@Timeout(30)
class MetricsHandlerTest {
    private final BayeuxServer bayeux = BayeuxServer.create(ServerOptions.defaults());
    private final HttpClient http = new HttpClient();
    private Server jetty;
    private MetricsHandler metrics;
    private URI base;

    @BeforeEach
    void start() throws Exception {
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        jetty.addConnector(connector);
        metrics = new MetricsHandler(bayeux);
        metrics.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                response.setStatus(299);
                callback.succeeded();
                return true;
            }
        });
        jetty.setHandler(metrics);
        jetty.start();
        http.start();
        base = URI.create("http://127.0.0.1:" + connector.getLocalPort());
    }

    @AfterEach
    void stop() throws Exception {
        http.stop();
        jetty.stop();
        bayeux.close();
    }

    private ContentResponse get(String path) throws Exception {
        return http.GET(base.resolve(path));
    }

    @Test
    void metricsArePrometheusTextWithWeftsAndTheJvms() throws Exception {
        ScriptedClient.connected(bayeux, "a");
        ContentResponse response = get("/metrics");
        assertEquals(200, response.getStatus());
        assertTrue(response.getMediaType().startsWith("text/plain"), response.getMediaType());
        String text = response.getContentAsString();
        assertTrue(text.contains("weft_handshakes_total{outcome=\"accepted\"} 1.0"), text);
        assertTrue(text.contains("jvm_memory_used_bytes"), "the JVM's too");
        assertTrue(text.contains("# TYPE weft_sessions gauge"), text);
    }

    @Test
    void statsAreJsonWithRatesOverTheIntervalSinceThePreviousCall() throws Exception {
        String first = get("/stats").getContentAsString();
        assertTrue(first.contains("\"interval\":{\"seconds\":0}"), first);
        ScriptedClient publisher = ScriptedClient.connected(bayeux, "p");
        publisher.publishJson("/a", "1");
        ContentResponse response = get("/stats");
        assertEquals("application/json", response.getMediaType());
        String json = response.getContentAsString();
        assertTrue(json.contains("\"messagesReceived\":1"), json);
        assertTrue(json.contains("\"sessionsByConnectionType\":{\"long-polling\":1}"), json);
        assertTrue(json.contains("\"messagesReceivedPerSecond\":"), json);
        assertTrue(json.contains("\"maxQueue\":0"), json);
        assertTrue(json.contains("\"deliveryLatencyMillis\":{\"count\":0,"), json);
    }

    @Test
    void statsCarryTheLatencyHistogramSoAReaderCanTakeItsOwnIntervals() throws Exception {
        ScriptedClient subscriber = ScriptedClient.connected(bayeux, "s");
        subscriber.subscribe("/a");
        ScriptedClient publisher = ScriptedClient.connected(bayeux, "p");
        publisher.publishJson("/a", "1");
        subscriber.connectNow();
        Map<String, Object> first = new ObjectMapper().readValue(get("/stats").getContentAsString(), Map.class);
        publisher.publishJson("/a", "2");
        publisher.publishJson("/a", "3");
        subscriber.connectNow();
        String text = get("/stats").getContentAsString();
        Map<String, Object> second = new ObjectMapper().readValue(text, Map.class);

        Latency between = latency(second).since(latency(first));
        assertEquals(2, between.count(), text);
        assertEquals(bayeux.getStats().deliveryLatency(), latency(second), "the histogram as getStats() read it");
        Map<?, ?> interval = (Map<?, ?>) second.get("interval");
        assertEquals(2, ((Map<?, ?>) interval.get("deliveryLatencyMillis")).get("count"), text);
        Map<?, ?> bytes = (Map<?, ?>) second.get("bytesWrittenByConnectionType");
        assertEquals(bayeux.getStats().bytesWrittenByConnectionType().get("long-polling"),
                ((Number) bytes.get("long-polling")).longValue(), text);
        assertTrue(((Number) interval.get("bytesWrittenPerSecond")).doubleValue() > 0, text);
    }

    private static Latency latency(Map<String, Object> stats) {
        return MetricsHandler.deliveryLatency(stats);
    }

    @Test
    void healthTurns503WhenTheServerIsClosing() throws Exception {
        assertEquals(200, get("/health").getStatus());
        metrics.closing();
        ContentResponse closing = get("/health");
        assertEquals(503, closing.getStatus());
        assertEquals("{\"status\":\"closing\"}", closing.getContentAsString());
    }

    @Test
    void healthTurns503AsSoonAsTheBayeuxServerDrainsWithNoCallOfItsOwn() throws Exception {
        ScriptedClient.connected(bayeux, "b").heldConnect();
        assertEquals(200, get("/health").getStatus());
        bayeux.drain(Duration.ofMinutes(1));
        ContentResponse draining = get("/health");
        assertEquals(503, draining.getStatus(), "the balancer stops sending new clients at once");
        assertEquals("{\"status\":\"draining\"}", draining.getContentAsString());
        assertEquals(1, bayeux.getSessions().size(), "the sessions move over the window, not at once");
        assertTrue(get("/metrics").getContentAsString().contains("weft_sessions_drained_total"));
    }

    @Test
    void healthIs503OnceTheBayeuxServerIsClosed() throws Exception {
        bayeux.close();
        assertEquals(503, get("/health").getStatus());
    }

    @Test
    void everythingElseGoesToTheNextHandler() throws Exception {
        assertEquals(299, get("/cometd").getStatus());
        assertEquals(299, http.POST(base.resolve("/metrics")).send().getStatus(), "only GET is answered here");
    }
}
