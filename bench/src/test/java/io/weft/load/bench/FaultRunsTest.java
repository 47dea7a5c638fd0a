package io.weft.load.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.load.LoadServer;
import io.weft.server.api.ServerOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** Two fault runs of bench/faults.sh, small, against the load server as the script starts it for them. */
@Timeout(120)
class FaultRunsTest {
    private LoadServer.Running server;
    private String url;

    @BeforeEach
    void startServer() throws Exception {
        server = LoadServer.start(new LoadServer.Settings("127.0.0.1", 0, "/cometd", 64, ServerOptions.defaults(),
                EnumSet.of(LoadServer.Extension.ACK), false),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        url = "http://127.0.0.1:" + server.port() + "/cometd";
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @Test
    void afterEveryConnectionDropsAsManyClientsHandshakeAndAllAreBack() throws Exception {
        Map<String, String> result = run("storm", "--urls=" + url, "--clients=50", "--rooms=5");

        assertEquals("50", result.get("first_connected"), result.toString());
        assertEquals("50", result.get("back"), result.toString());
        assertEquals("0", result.get("refused"), result.toString());
        assertTrue(Long.parseLong(result.get("all_back_ms")) >= 0, result.toString());
    }

    @Test
    void acknowledgedDeliveryThroughAProxyThatCutsConnectionsLosesNothing() throws Exception {
        Map<String, String> result = run("proxy", "--urls=" + url, "--transport=websocket", "--clients=10",
                "--rooms=2", "--rate=100", "--seconds=2", "--cut-ms=100");

        assertEquals("200", result.get("published"), result.toString());
        assertEquals("0", result.get("publish_failures"), result.toString());
        assertTrue(Long.parseLong(result.get("cuts")) > 0, "the proxy cut connections: " + result);
        assertEquals("0", result.get("lost"), result.toString());
        assertEquals(result.get("owed"), result.get("received"), result.toString());
    }

    /** Runs a command and returns its RESULT line's key=value pairs. */
    private static Map<String, String> run(String... args) {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = System.out;
        int exit;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            exit = new CommandLine(new Bench()).execute(args);
        } finally {
            System.setOut(out);
        }
        String text = printed.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, text);
        Map<String, String> result = new HashMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("RESULT ")) {
                for (String pair : line.substring(7).trim().split(" ")) {
                    result.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
                }
            }
        }
        assertTrue(!result.isEmpty(), "a RESULT line: " + text);
        return result;
    }
}
