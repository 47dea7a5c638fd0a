package io.weft.examples.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Faye client (npm {@code faye} 1.4.3), the other Bayeux client in the field, against Weft from Node, on each
 * transport: two clients subscribe, publish, receive each other's messages and unsubscribe
 * ({@code node/faye-check.js}). Skipped, saying so, where Node is not installed.
 *
 * <p>With the server's default options: over websocket Faye in Node opens a probe socket without a cookie while it
 * handshakes over HTTP without one, as in a browser (the first-visit race of docs/protocol.md, "Browsers"). Before
 * issue 28 the 101 set a cookie of its own, the socket was refused {@code 402} in about 1 run of 8, and this test
 * trusted clientIds to pass. FayeInBrowserTest runs Faye's browser client.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FayeClientTest {
    private static Path modules;
    private static Path script;
    private ChatServer server;

    @BeforeAll
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    static void start() throws Exception {
        Assumptions.assumeTrue(nodeInstalled(), "node is not installed: the Faye client cannot run");
        Path target = Path.of(System.getProperty("weft.examples.target", "target"));
        // its own prefix: npm prunes from a prefix what it was not asked to install there
        modules = NpmPackage.install(target.resolve("npm-faye"), NpmPackage.FAYE);
        script = script();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static boolean nodeInstalled() {
        try {
            Process node = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            return node.waitFor(20, TimeUnit.SECONDS) && node.exitValue() == 0;
        } catch (IOException | InterruptedException x) {
            return false;
        }
    }

    private static Path script() throws URISyntaxException {
        return Path.of(FayeClientTest.class.getResource("/node/faye-check.js").toURI());
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void theFayeClientSubscribesPublishesAndUnsubscribes(String transport) throws Exception {
        server = ChatServer.start(ChatServer.Settings.of(0));
        Path output = Files.createTempFile("faye-check", ".txt");
        try {
            ProcessBuilder builder = new ProcessBuilder("node", script.toString(), server.baseUrl() + "/cometd",
                    transport).redirectErrorStream(true).redirectOutput(output.toFile());
            Map<String, String> environment = builder.environment();
            environment.put("NODE_PATH", modules.toAbsolutePath().toString());
            environment.put("FAYE_LOG", "1"); // Faye's own log, printed when the check fails
            Process node = builder.start();
            boolean ended = node.waitFor(60, TimeUnit.SECONDS);
            if (!ended) {
                node.destroyForcibly();
            }
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            assertTrue(ended, "the Faye check did not end within 60 s: " + printed);
            assertEquals(0, node.exitValue(), printed);
            assertEquals("OK " + transport + " " + transport, printed.strip().lines().reduce((a, b) -> b).orElse(""),
                    printed);
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
