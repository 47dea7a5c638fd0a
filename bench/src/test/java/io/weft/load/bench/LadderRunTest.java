package io.weft.load.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.load.LoadServer;
import io.weft.server.api.ServerOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * A short ladder against the load server on each of the bench's transports, through the command line the bench
 * scripts use: a CSV row per rate in which every message of the window arrived, a histogram per rate, and both
 * charts drawn from them.
 */
@Timeout(120)
class LadderRunTest {
    private LoadServer.Running server;

    @BeforeEach
    void startServer() throws Exception {
        server = LoadServer.start("127.0.0.1", 0, "/cometd", 64, ServerOptions.defaults(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling", "lean-websocket", "lean-long-polling"})
    void everyRateGetsARowInWhichTheWindowsMessagesArrived(String transport, @TempDir Path results) throws Exception {
        Path csv = results.resolve("ladder.csv");
        Path hlogs = results.resolve("hlog");
        String url = "http://127.0.0.1:" + server.port() + "/cometd";

        int exit = new CommandLine(new Bench()).execute("ladder", "--urls=" + url + "," + url.replace("127.0.0.1",
                "localhost"), "--transport=" + transport, "--clients=40", "--rooms=4", "--size=50",
                "--rates=500,1000", "--burst=1", "--prewarm-ms=0", "--warmup-ms=200", "--measure-ms=1000",
                "--knee-p99-ms=60000", "--server-pid=" + ProcessHandle.current().pid(), "--label=test",
                "--csv=" + csv, "--hlog-dir=" + hlogs);

        assertEquals(0, exit);
        List<String> lines = Files.readAllLines(csv);
        assertEquals(LadderStep.HEADER, lines.get(0));
        assertEquals(3, lines.size(), "a row per rate: " + lines);
        String connectionType = transport.endsWith("long-polling") ? "long-polling" : "websocket";
        for (String row : lines.subList(1, 3)) {
            String[] cells = row.split(",", -1);
            assertEquals("weft", cells[0]);
            assertEquals(connectionType, cells[1]);
            assertTrue(Long.parseLong(cells[8]) > 0, "messages expected in the window: " + row);
            assertEquals(cells[8], cells[9], "every expected message received: " + row);
            assertEquals("0.00", cells[10], row);
            assertEquals("test", cells[16], row);
            assertTrue(Double.parseDouble(cells[17]) > 0, "the server's CPU, read from /proc: " + row);
        }
        Path hlog = hlogs.resolve("weft-" + connectionType + "-40c-4r-50B-1000-test.hlog");
        assertTrue(Files.size(hlog) > 0, "the rung's histogram");

        Path chart = results.resolve("p99.png");
        assertEquals(0, new CommandLine(new Bench()).execute("chart", "--csv=" + csv, "--out=" + chart,
                "--x=delivered_per_s", "--y=p99_ms", "--series=server+label", "--where=transport=" + connectionType,
                "--logy=true"));
        assertTrue(Files.size(chart) > 0);
        Path overlay = results.resolve("latency.png");
        assertEquals(0, new CommandLine(new Bench()).execute("latency-chart", "--out=" + overlay, "--title=t",
                hlog + "=" + transport, hlogs.resolve("weft-" + connectionType + "-40c-4r-50B-500-test.hlog").toString()));
        assertTrue(Files.size(overlay) > 0);
    }

    @Test
    void thePrewarmRunsAtItsOwnRateAndIsNotRecorded(@TempDir Path results) throws Exception {
        Path csv = results.resolve("ladder.csv");
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        PrintStream err = System.err;
        int exit;
        System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
        try {
            exit = new CommandLine(new Bench()).execute("ladder", "--urls=http://127.0.0.1:" + server.port()
                    + "/cometd", "--transport=lean-websocket", "--clients=20", "--rooms=2", "--rates=1000",
                    "--burst=1", "--prewarm-ms=500", "--prewarm-rate=200", "--warmup-ms=200", "--measure-ms=500",
                    "--knee-p99-ms=60000", "--csv=" + csv);
        } finally {
            System.setErr(err);
        }
        String text = logged.toString(StandardCharsets.UTF_8);

        assertEquals(0, exit, text);
        assertTrue(text.contains("prewarm: weft,websocket,20,2,50,200,"), "the prewarm at 200 msgs/s: " + text);
        List<String> rows = Files.readAllLines(csv);
        assertEquals(2, rows.size(), "the header and the one rate's row: " + rows);
        assertTrue(rows.get(1).startsWith("weft,websocket,20,2,50,1000,"), rows.get(1));
    }
}
