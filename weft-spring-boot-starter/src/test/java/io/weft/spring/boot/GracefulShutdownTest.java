package io.weft.spring.boot;

import static io.weft.spring.boot.EndToEndSuite.within;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weft.server.api.BayeuxServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * When the application stops, the Bayeux server closes before the web server's graceful shutdown: a held long-poll is
 * answered at once (advice {@code reconnect: handshake}), by the server, while the container still writes, rather than
 * at the end of its {@code weft.timeout} or cut by the container. The application is started and stopped by the test.
 */
@Timeout(60)
class GracefulShutdownTest {
    /** Far longer than the test waits for the held poll's answer: only the shutdown can answer it in time. */
    private static final Duration HELD = Duration.ofSeconds(50);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aHeldLongPollIsAnsweredWhenTheApplicationStops() throws Exception {
        ConfigurableApplicationContext application = start();
        HttpClient http = new HttpClient();
        try {
            http.start();
            BayeuxServer bayeux = application.getBean(BayeuxServer.class);
            WeftHealthIndicator health = application.getBean(WeftHealthIndicator.class);
            CompletableFuture<ContentResponse> held = holdAConnect(http, application);

            long closing = System.nanoTime();
            Thread stopper = new Thread(application::close, "stopper");
            stopper.start();
            ContentResponse answered = held.get(10, TimeUnit.SECONDS);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing);

            assertEquals(200, answered.getStatus(), answered.getContentAsString());
            JsonNode reply = JSON.readTree(answered.getContentAsString()).get(0);
            assertEquals("/meta/connect", reply.path("channel").asText(), answered.getContentAsString());
            assertEquals("handshake", reply.path("advice").path("reconnect").asText(), answered.getContentAsString());
            assertTrue(tookMillis < HELD.toMillis() / 5, "answered " + tookMillis + " ms after the stop began");

            stopper.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(stopper.isAlive(), "the application stopped");
            assertTrue(bayeux.isClosed());
            assertEquals(Status.DOWN, health.health().getStatus());
        } finally {
            application.close();
            http.stop();
        }
    }

    @Test
    void withADrainWindowAHeldLongPollIsToldToHandshakeAgainElsewhereAndHealthIsDownMeanwhile() throws Exception {
        ConfigurableApplicationContext application = start("weft.drain=2s");
        HttpClient http = new HttpClient();
        try {
            http.start();
            BayeuxServer bayeux = application.getBean(BayeuxServer.class);
            WeftHealthIndicator health = application.getBean(WeftHealthIndicator.class);
            CompletableFuture<ContentResponse> held = holdAConnect(http, application);

            Thread stopper = new Thread(application::close, "stopper");
            stopper.start();
            assertTrue(within(bayeux::isDraining), "the stop drains");
            assertEquals(Status.DOWN, health.health().getStatus(), "down while draining");
            ContentResponse answered = held.get(10, TimeUnit.SECONDS);
            JsonNode reply = JSON.readTree(answered.getContentAsString()).get(0);
            assertEquals("503::server_draining", reply.path("error").asText(), answered.getContentAsString());
            assertEquals("handshake", reply.path("advice").path("reconnect").asText(), answered.getContentAsString());

            stopper.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(stopper.isAlive(), "the application stopped");
            assertTrue(bayeux.isClosed(), "closed at the end of the window");
        } finally {
            application.close();
            http.stop();
        }
    }

    /** The test application on a free port, its held long-polls lasting {@link #HELD}, with {@code more} properties. */
    private static ConfigurableApplicationContext start(String... more) {
        List<String> properties = new ArrayList<>(List.of("server.port=0", "server.address=127.0.0.1",
                "spring.main.banner-mode=off", "weft.timeout=" + HELD.toMillis(),
                "server.tomcat.connection-timeout=120s"));
        properties.addAll(List.of(more));
        return new SpringApplicationBuilder(WeftTestApplication.class).properties(properties.toArray(String[]::new))
                .run();
    }

    /** A long-polling client's handshake and first connect, then a second connect, which the server holds. */
    private static CompletableFuture<ContentResponse> holdAConnect(HttpClient http,
            ConfigurableApplicationContext application) throws Exception {
        BayeuxServer bayeux = application.getBean(BayeuxServer.class);
        String url = "http://127.0.0.1:" + ((WebServerApplicationContext) application).getWebServer().getPort()
                + "/cometd";
        String clientId = post(http, url, "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]").get(0).path("clientId").asText();
        String connect = "[{\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId
                + "\",\"connectionType\":\"long-polling\"}]";
        post(http, url, connect.replace("}]", ",\"advice\":{\"timeout\":0}}]")); // answered at once
        CompletableFuture<ContentResponse> held = new CompletableResponseListener(request(http, url, connect)).send();
        assertTrue(within(() -> bayeux.getStats().heldConnects() == 1), "the second connect is held");
        return held;
    }

    private static Request request(HttpClient http, String url, String body) {
        return http.newRequest(url)
                .method(HttpMethod.POST)
                .body(new StringRequestContent("application/json", body))
                .timeout(HELD.toMillis() * 2, TimeUnit.MILLISECONDS);
    }

    private static JsonNode post(HttpClient http, String url, String body) throws Exception {
        ContentResponse response = request(http, url, body).timeout(5, TimeUnit.SECONDS).send();
        assertEquals(200, response.getStatus(), response.getContentAsString());
        return JSON.readTree(response.getContentAsString());
    }
}
