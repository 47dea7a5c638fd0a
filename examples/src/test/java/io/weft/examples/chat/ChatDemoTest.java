package io.weft.examples.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The demo's main class as a user starts it, and what it serves. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChatDemoTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void mainPrintsReadyWithTheChosenPortAndServesThePageAndBayeux() throws Exception {
        try (DemoProcess demo = DemoProcess.start("--port=0")) {
            int port = demo.port();
            String base = "http://127.0.0.1:" + port;

            HttpResponse<String> page = get(base + "/");
            assertEquals(200, page.statusCode());
            assertTrue(page.body().contains("<title>Weft chat</title>"), page.body());
            HttpResponse<String> client = get(base + "/weft.js");
            assertEquals(200, client.statusCode());
            assertTrue(client.headers().firstValue("Content-Type").orElse("").startsWith("text/javascript"),
                    "ES modules need a JavaScript MIME type: " + client.headers());
            HttpResponse<String> extension = get(base + "/weft-recovery.js"); // for the official client, beside it
            assertEquals(200, extension.statusCode());
            assertTrue(extension.headers().firstValue("Content-Type").orElse("").startsWith("text/javascript")
                    && extension.body().contains("export class WeftRecoveryExtension"), extension.headers().toString());

            HttpResponse<String> handshake = http.send(HttpRequest.newBuilder(URI.create(base + "/cometd"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                            + "\"supportedConnectionTypes\":[\"websocket\",\"long-polling\"],\"id\":\"1\"}]"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, handshake.statusCode());
            assertTrue(handshake.body().contains("\"successful\":true"), handshake.body());
            assertTrue(handshake.body().contains("\"websocket\"") && handshake.body().contains("\"long-polling\""),
                    handshake.body());

            // what an operator polls (MetricsHandler)
            assertEquals(200, get(base + "/health").statusCode());
            HttpResponse<String> metrics = get(base + "/metrics");
            assertEquals(200, metrics.statusCode());
            assertTrue(metrics.body().contains("weft_handshakes_total{outcome=\"accepted\"} 1.0"), metrics.body());
            HttpResponse<String> stats = get(base + "/stats");
            assertTrue(stats.body().contains("\"handshakesAccepted\":1"), stats.body());
        }
    }

    /**
     * SIGTERM drains: the JVM waits for the demo's shutdown hook, Jetty's own stop at shutdown does not cut it short,
     * {@code /health} answers 503 while the process still serves, a client's held {@code /meta/connect} is told to
     * handshake elsewhere with {@code Connection: close}, and the process ends after the window.
     */
    @Test
    void sigtermDrainsBeforeTheDemoStops() throws Exception {
        try (DemoProcess demo = DemoProcess.start("--port=0", "--drain=3s")) {
            String base = "http://127.0.0.1:" + demo.port();
            HttpResponse<String> handshake = post(base, null, "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"long-polling\"],\"id\":\"1\"}]");
            String cookie = handshake.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
            String clientId = handshake.body().replaceAll(".*\"clientId\":\"([^\"]+)\".*", "$1");
            String connect = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\""
                    + clientId + "\"";
            assertTrue(post(base, cookie, connect + ",\"advice\":{\"timeout\":0}}]").body()
                    .contains("\"successful\":true"));
            CompletableFuture<HttpResponse<String>> held = http.sendAsync(request(base, cookie, connect + "}]"),
                    HttpResponse.BodyHandlers.ofString());

            demo.terminate();
            String draining = demo.line("Draining", 10);
            assertNotNull(draining, () -> "the shutdown hook started draining: " + demo.rest());
            assertEquals(503, get(base + "/health").statusCode(), "the balancer is told at once, while it serves");
            HttpResponse<String> drained = held.get(10, TimeUnit.SECONDS);
            assertTrue(drained.body().contains("503::server_draining"), drained.body());
            assertNotNull(demo.line("Stopped", 15), "it stops once the window is over");
            demo.exitCode();
        }
    }

    private HttpResponse<String> post(String base, String cookie, String body) throws Exception {
        return http.send(request(base, cookie, body), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest request(String base, String cookie, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "/cometd"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (cookie != null) {
            request.header("Cookie", cookie);
        }
        return request.build();
    }

    @Test
    void argumentsChooseThePortAndHost() {
        assertEquals(8080, ChatDemo.parse().port());
        assertEquals("127.0.0.1", ChatDemo.parse().host());
        assertEquals(0, ChatDemo.parse("--port=0").port());
        assertEquals("0.0.0.0", ChatDemo.parse("--port=9000", "--host=0.0.0.0").host());
        assertNull(ChatDemo.parse("--help"));
        assertThrows(IllegalArgumentException.class, () -> ChatDemo.parse("--port=http"));
        assertThrows(IllegalArgumentException.class, () -> ChatDemo.parse("--port=70000"));
        assertThrows(IllegalArgumentException.class, () -> ChatDemo.parse("--verbose"));
        assertEquals(Duration.ofSeconds(10), ChatDemo.drainWindow(), "drains 10 s on SIGTERM unless told");
        assertEquals(Duration.ofMillis(500), ChatDemo.drainWindow("--port=0", "--drain=500ms"));
        assertEquals(Duration.ofMinutes(2), ChatDemo.drainWindow("--drain=2m"));
        assertEquals(Duration.ZERO, ChatDemo.drainWindow("--drain=0"));
        assertEquals(0, ChatDemo.parse("--port=0", "--drain=3s").port());
        assertThrows(IllegalArgumentException.class, () -> ChatDemo.parse("--drain=-1s"));
        assertThrows(IllegalArgumentException.class, () -> ChatDemo.parse("--drain=soon"));
    }

    @Test
    void clusterArgumentsNameTheRedisAndTheAnnouncementPeriod() {
        assertNull(ChatDemo.parse().redis(), "a single node unless asked");
        assertEquals(ChatCluster.ANNOUNCE_EVERY, ChatDemo.parse().announceEvery());
        ChatServer.Settings settings = ChatDemo.parse("--redis=redis://10.0.0.5:6380", "--announce=500");
        assertEquals("redis://10.0.0.5:6380", settings.redis());
        assertEquals(Duration.ofMillis(500), settings.announceEvery());
        assertThrows(IllegalArgumentException.class, () -> ChatDemo.parse("--redis=10.0.0.5:6380"));
        assertThrows(IllegalArgumentException.class, () -> ChatDemo.parse("--announce=5"));
        assertThrows(IllegalArgumentException.class, () -> ChatDemo.parse("--announce=soon"));
    }

    @Test
    void trustProxyNamesTheProxiesWhoseForwardedHeadersCount() {
        assertEquals(List.of(), ChatDemo.parse().trustedProxies(), "no proxy trusted unless asked");
        assertEquals(List.of("127.0.0.1", "10.0.0.0/8"),
                ChatDemo.parse("--trust-proxy=127.0.0.1, 10.0.0.0/8").trustedProxies());
        assertThrows(IllegalArgumentException.class, () -> ChatDemo.parse("--trust-proxy="));
        assertEquals(List.of("127.0.0.1"), ChatDemo.parse("--engine=netty", "--trust-proxy=127.0.0.1").trustedProxies(),
                "on either engine");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jetty", "netty"})
    void behindTheTrustedProxyThePublicOriginIsAcceptedAndTheCookieIsSecure(String engine) throws Exception {
        try (DemoProcess demo = DemoProcess.start("--port=0", "--engine=" + engine, "--trust-proxy=127.0.0.1")) {
            HttpResponse<String> handshake = http.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + demo.port() + "/cometd"))
                    .header("Content-Type", "application/json")
                    .header("Origin", "https://chat.example.com:8443")
                    .header("X-Forwarded-Proto", "https")
                    .header("X-Forwarded-Host", "chat.example.com:8443")
                    .header("X-Forwarded-For", "203.0.113.7")
                    .POST(HttpRequest.BodyPublishers.ofString("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                            + "\"supportedConnectionTypes\":[\"long-polling\"],\"id\":\"1\"}]"))
                    .build(), HttpResponse.BodyHandlers.ofString());

            assertEquals(200, handshake.statusCode(), handshake.body());
            assertTrue(handshake.body().contains("\"successful\":true"), handshake.body());
            assertTrue(handshake.headers().firstValue("Set-Cookie").orElse("").contains("; Secure"),
                    handshake.headers().toString());
        }
    }

    @Test
    void aProxyNamedByHostNameStopsTheDemoWithOneLineSayingSo() throws Exception {
        try (DemoProcess demo = DemoProcess.start("--port=0", "--trust-proxy=proxy.example.com")) {
            String line = demo.line("The chat demo could not start", 30);
            assertTrue(line != null && line.contains("proxy.example.com") && line.contains("IP address"),
                    String.valueOf(line));
            assertEquals(1, demo.exitCode());
            assertNull(demo.line("\tat ", 1), "no stack trace");
        }
    }

    @Test
    void aRedisThatCannotBeReachedStopsTheDemoWithOneLineNamingIt() throws Exception {
        int closed;
        try (java.net.ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = free.getLocalPort(); // nothing listens there once this is closed
        }
        try (DemoProcess demo = DemoProcess.start("--port=0", "--redis=redis://:secret@127.0.0.1:" + closed)) {
            String line = demo.line("The chat demo could not start", 30);
            assertTrue(line != null && line.contains("127.0.0.1") && line.contains(String.valueOf(closed))
                    && !line.contains("secret"), String.valueOf(line));
            assertEquals(1, demo.exitCode());
            assertNull(demo.line("\tat ", 1), "no stack trace");
        }
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
