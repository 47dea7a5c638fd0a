package io.weft.examples.starter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.examples.chat.NpmPackage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;

/**
 * The official CometD JavaScript client (npm {@code cometd} 9.0.0 in Node, through {@code cometd-nodejs-client}
 * 2.0.0) running {@code node/cometd-check.mjs} against a Bayeux URL: handshake, subscribe, publish, its own message
 * received, unsubscribe and disconnect over one transport, then a connect for the ended session answered
 * {@code 402::session_unknown}.
 */
public final class OfficialJsClient {
    private final Path script;

    private OfficialJsClient(Path script) {
        this.script = script;
    }

    /** Installs the client under {@code target} (once per build); skips the calling test where Node is missing. */
    public static OfficialJsClient install(Path target) throws IOException, InterruptedException {
        Assumptions.assumeTrue(nodeInstalled(), "node is not installed: the official JavaScript client cannot run");
        Path prefix = target.resolve("npm-cometd-node");
        NpmPackage.install(prefix, NpmPackage.COMETD, NpmPackage.COMETD_NODE);
        // beside its node_modules: ES modules resolve packages from the importing file's folder, not NODE_PATH
        Path script = prefix.resolve("cometd-check.mjs");
        try (InputStream source = OfficialJsClient.class.getResourceAsStream("/node/cometd-check.mjs")) {
            Files.copy(source, script, StandardCopyOption.REPLACE_EXISTING);
        }
        return new OfficialJsClient(script);
    }

    /** Runs the check against {@code bayeuxUrl} over {@code transport}; {@code serverLog} explains a failure. */
    public void check(String bayeuxUrl, String transport, Supplier<String> serverLog) throws Exception {
        check(bayeuxUrl, transport, serverLog, Map.of());
    }

    /**
     * The same, with {@code environment} added to Node's ({@code NODE_EXTRA_CA_CERTS} to trust a test's own
     * certificate, for example).
     */
    public void check(String bayeuxUrl, String transport, Supplier<String> serverLog, Map<String, String> environment)
            throws Exception {
        Path output = Files.createTempFile("cometd-check", ".txt");
        try {
            ProcessBuilder command = new ProcessBuilder("node", script.toString(), bayeuxUrl, transport)
                    .directory(script.getParent().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile());
            command.environment().putAll(environment);
            Process node = command.start();
            boolean ended = node.waitFor(60, TimeUnit.SECONDS);
            if (!ended) {
                node.destroyForcibly();
            }
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            String last = printed.strip().lines().reduce((a, b) -> b).orElse("");
            assertTrue(ended, "the check did not end within 60 s: " + printed);
            assertEquals(0, node.exitValue(), printed + serverLog.get());
            assertTrue(last.startsWith("OK " + transport + " "), printed);
        } finally {
            Files.deleteIfExists(output);
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
}
