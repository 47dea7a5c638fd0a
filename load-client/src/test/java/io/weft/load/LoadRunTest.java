package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * A short load run end to end against the load server, on each transport and each engine (Jetty, Netty): every
 * message arrives exactly once.
 */
@Timeout(180)
class LoadRunTest {
    private final ByteArrayOutputStream serverOutput = new ByteArrayOutputStream();
    private LoadServer.Running server;

    private void startServer(LoadServer.Engine engine) throws Exception {
        server = LoadServer.start(new LoadServer.Settings("127.0.0.1", 0, "/cometd", 64, ServerOptions.defaults(),
                EnumSet.allOf(LoadServer.Extension.class), false).withEngine(engine),
                new PrintStream(serverOutput, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    /** Each transport the tool drives, on each engine the load server runs. */
    static Stream<Arguments> runs() {
        return Stream.of(LoadServer.Engine.values()).flatMap(engine -> Stream.of("websocket", "long-polling",
                "eventsource").map(transport -> Arguments.of(engine, transport)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("runs")
    void everyExpectedMessageArrivesExactlyOnce(LoadServer.Engine engine, String transport, @TempDir Path results)
            throws Exception {
        startServer(engine);
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        LoadClient client = new LoadClient(new ByteArrayInputStream(new byte[0]),
                new PrintStream(output, true, StandardCharsets.UTF_8));

        int exit = new CommandLine(client).execute("--auto", "--server=127.0.0.1", "--port=" + server.port(),
                "--transport=" + transport, "--clients=100", "--rooms=10", "--batches=100", "--batch-size=10",
                "--batch-pause=2000", "--max-threads=64", "--seed=7", "--results=" + results);

        String report = output.toString(StandardCharsets.UTF_8);
        LoadSession.RunResult run = client.lastRun();
        assertEquals(0, exit, report);
        assertTrue(run.expected() > 0, report);
        assertEquals(run.expected(), run.received(), report);
        assertEquals(0, run.duplicates(), report);
        assertEquals(0, run.publishFailures(), report);
        assertEquals(run.expected(), run.latency().samples(), "one latency sample per delivery");
        assertTrue(report.contains("Messages - Success/Expected = " + run.expected() + "/" + run.expected()), report);
        assertTrue(report.contains("Server - CPU") || report.contains("Server - Elapsed"), report);
        assertTrue(report.contains("Server - Latency (publish to write): " + run.expected() + " deliveries |"),
                "the server's own latency of each delivery of the run, read from its /stats: " + report);
        assertTrue(server.bayeux().getSessions().isEmpty(), "every client disconnected");

        List<String> csv = Files.readAllLines(results.resolve(ResultsFolder.CSV));
        assertEquals(2, csv.size(), "a header and one row");
        assertTrue(csv.get(1).contains("," + transport + ",100,10,"), csv.get(1));
        try (var charts = Files.list(results)) {
            assertEquals(1, charts.filter(p -> p.toString().endsWith(".png")).count());
        }
    }
}
