package io.weft.examples.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The demo's main class as a user starts it, and what it serves. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChatDemoTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void mainPrintsReadyWithTheChosenPortAndServesThePageAndBayeux() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process demo = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                "io.weft.examples.chat.ChatDemo", "--port=0")
                .redirectErrorStream(true)
                .start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
                try {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        if (line.startsWith("READY port=")) {
                            return line;
                        }
                    }
                    return null;
                } catch (java.io.IOException x) {
                    throw new java.io.UncheckedIOException(x);
                }
            });
            String line = ready.get(30, TimeUnit.SECONDS);
            assertTrue(line != null && line.matches("READY port=\\d+"), String.valueOf(line));
            int port = Integer.parseInt(line.substring("READY port=".length()));
            String base = "http://127.0.0.1:" + port;

            HttpResponse<String> page = get(base + "/");
            assertEquals(200, page.statusCode());
            assertTrue(page.body().contains("<title>Weft chat</title>"), page.body());
            HttpResponse<String> client = get(base + "/weft.js");
            assertEquals(200, client.statusCode());
            assertTrue(client.headers().firstValue("Content-Type").orElse("").startsWith("text/javascript"),
                    "ES modules need a JavaScript MIME type: " + client.headers());

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
        } finally {
            demo.destroy();
            if (!demo.waitFor(10, TimeUnit.SECONDS)) {
                demo.destroyForcibly();
            }
        }
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
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
