package io.weft.examples.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.examples.chat.NpmPackage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The browser clients' own tests, in Node ({@code node --test}, Node 20's test runner): {@code src/test/node/}, where
 * weft.js's recovery runs against a scripted server standing in for {@code fetch}, and {@code weft-recovery.js} inside
 * the official CometD JavaScript client (npm {@code cometd} 9.0.0, installed by this test) against the same. Skipped,
 * saying so, where Node is not installed.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class WeftJsNodeTest {
    private static final Path TESTS = Path.of("src/test/node");

    @Test
    void weftJsAndTheCometDExtensionPassTheirNodeTests() throws Exception {
        Assumptions.assumeTrue(nodeInstalled(), "node is not installed: the JavaScript tests cannot run");
        Path target = Path.of(System.getProperty("weft.examples.target", "target"));
        // the prefix OfficialJsClient installs the same packages into: npm prunes what a call did not ask for
        Path modules = NpmPackage.install(target.resolve("npm-cometd-node"), NpmPackage.COMETD,
                NpmPackage.COMETD_NODE);
        Path output = Files.createTempFile("node-test", ".txt");
        try {
            ProcessBuilder command = new ProcessBuilder("node", "--test", "--test-reporter=tap",
                    TESTS.resolve("weft.test.mjs").toString(), TESTS.resolve("weft-recovery.test.mjs").toString())
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile());
            command.environment().put("COMETD_MODULE",
                    modules.resolve("cometd/cometd.js").toAbsolutePath().toUri().toString());
            Process node = command.start();
            boolean ended = node.waitFor(120, TimeUnit.SECONDS);
            if (!ended) {
                node.destroyForcibly();
            }
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            assertTrue(ended, "node --test did not end within 120 s: " + printed);
            assertEquals(0, node.exitValue(), printed);
            List<String> summary = printed.lines().filter(line -> line.startsWith("# ")).toList();
            assertTrue(summary.contains("# fail 0") && summary.contains("# skipped 0")
                    && summary.stream().anyMatch(line -> line.matches("# pass [1-9][0-9]*")), printed);
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
