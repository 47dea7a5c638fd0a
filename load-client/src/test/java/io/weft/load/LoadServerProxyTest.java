package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import picocli.CommandLine;

/**
 * {@code --trust-proxy}: behind the named proxy each client is counted under the address the proxy forwarded, and the
 * page's public origin is the server's own, on either engine; a proxy named by anything but an IP address stops the
 * server at start.
 */
@Timeout(30)
class LoadServerProxyTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @ParameterizedTest
    @EnumSource(LoadServer.Engine.class)
    void behindTheTrustedProxyEachClientIsCountedUnderItsOwnAddress(LoadServer.Engine engine) throws Exception {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        LoadServer.Settings settings = new LoadServer.Settings("127.0.0.1", 0, "/cometd", 16,
                ServerOptions.builder().maxSessionsPerAddress(1).build(), EnumSet.noneOf(LoadServer.Extension.class),
                false, null, false, List.of("127.0.0.1")).withEngine(engine);
        try (LoadServer.Running server = LoadServer.start(settings,
                new PrintStream(output, true, StandardCharsets.UTF_8))) {
            assertTrue(output.toString(StandardCharsets.UTF_8).contains("Trusting the forwarded headers of 127.0.0.1"));

            assertTrue(handshake(server, "203.0.113.7").contains("\"successful\":true"));
            assertTrue(handshake(server, "198.51.100.9").contains("\"successful\":true"), "another client");
            String again = handshake(server, "203.0.113.7");
            assertTrue(again.contains("maxSessionsPerAddress"), again);
        }
    }

    @ParameterizedTest
    @EnumSource(LoadServer.Engine.class)
    void theFlagTakesCommaSeparatedAddressesAndRefusesHostNamesInOneLine(LoadServer.Engine engine) {
        LoadServer parsed = new LoadServer();
        new CommandLine(parsed).parseArgs("--trust-proxy=127.0.0.1,10.0.0.0/8");
        assertEquals(List.of("127.0.0.1", "10.0.0.0/8"), parsed.trustedProxies);

        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        System.setErr(new PrintStream(errors, true, StandardCharsets.UTF_8));
        int exit;
        try {
            exit = new CommandLine(new LoadServer()).execute("--host=127.0.0.1", "--port=0",
                    "--engine=" + engine.name().toLowerCase(Locale.ROOT), "--trust-proxy=proxy.example.com");
        } finally {
            System.setErr(stderr);
        }
        String printed = errors.toString(StandardCharsets.UTF_8);
        assertEquals(2, exit, printed);
        assertTrue(printed.startsWith("LoadServer could not start: ") && printed.contains("proxy.example.com"),
                printed);
        assertFalse(printed.contains("\tat "), "no stack trace: " + printed);
    }

    private String handshake(LoadServer.Running server, String client) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.port() + "/cometd"))
                .header("Content-Type", "application/json")
                .header("Origin", "https://load.example.com")
                .header("X-Forwarded-Proto", "https")
                .header("X-Forwarded-Host", "load.example.com")
                .header("X-Forwarded-For", client)
                .POST(HttpRequest.BodyPublishers.ofString("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                        + "\"supportedConnectionTypes\":[\"long-polling\"]}]"))
                .timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return response.body();
    }
}
