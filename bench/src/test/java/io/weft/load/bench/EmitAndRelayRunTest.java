package io.weft.load.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.weft.load.LoadServer;
import io.weft.server.api.ServerOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The emitter and relay commands against the load server as the benchmarks start it (no extensions), through the
 * command line the bench scripts use.
 */
@Timeout(120)
class EmitAndRelayRunTest {
    private LoadServer.Running server;
    private String url;

    @TempDir
    Path results;

    @BeforeEach
    void startServer() throws Exception {
        server = LoadServer.start(new LoadServer.Settings("127.0.0.1", 0, "/cometd", 64, ServerOptions.defaults(),
                EnumSet.noneOf(LoadServer.Extension.class), false),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        url = "http://127.0.0.1:" + server.port() + "/cometd";
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "eventsource"})
    void everyEmitReachesEveryClientAndThePeriodGetsARow(String transport) throws Exception {
        Path csv = results.resolve("emit.csv");

        int exit = new CommandLine(new Bench()).execute("emit", "--urls=" + url, "--transport=" + transport,
                "--clients=20", "--periods-s=0.2", "--emits=2", "--csv=" + csv);

        assertEquals(0, exit);
        List<String> lines = Files.readAllLines(csv);
        assertEquals(EmitCommand.HEADER, lines.get(0));
        assertEquals(2, lines.size(), lines.toString());
        String[] cells = lines.get(1).split(",");
        assertEquals(List.of("weft", transport, "20", "0.2", "2"), List.of(cells).subList(0, 5));
        assertEquals("100.00", cells[7], "every emit reached every client: " + lines.get(1));
        assertTrue(Double.parseDouble(cells[10]) > 0, "the server's heap, from its run report: " + lines.get(1));
        assertTrue(Double.parseDouble(cells[11]) > 0, "the server's RSS, from its run report: " + lines.get(1));
        assertEquals(40.0 / 0.4, Double.parseDouble(cells[13]), 1e-9, "20 clients x 2 emits in 0.4 s");
        assertTrue(Double.parseDouble(cells[14]) > 0 && Double.parseDouble(cells[15]) >= Double.parseDouble(cells[14]),
                "p50 and p99 of the arrivals: " + lines.get(1));
        assertTrue(Double.parseDouble(cells[16]) > 0, "the server's CPU per delivered message: " + lines.get(1));
    }

    @Test
    void everyRequestIsAnsweredAndTheServerSawEachRoundTripOfTheWindow() throws Exception {
        Path csv = results.resolve("relay.csv");
        Path report = results.resolve("relay-server.json");

        int exit = new CommandLine(new Bench()).execute("relay", "--urls=" + url, "--devices=30", "--requesters=3",
                "--rate=200", "--warmup-ms=300", "--measure-ms=1000", "--csv=" + csv, "--server-report=" + report);

        assertEquals(0, exit);
        List<String> lines = Files.readAllLines(csv);
        assertEquals(RelayCommand.HEADER, lines.get(0));
        String[] cells = lines.get(1).split(",");
        assertEquals(List.of("weft", "websocket", "30", "200"), List.of(cells).subList(0, 4));
        long sent = Long.parseLong(cells[4]);
        assertTrue(sent >= 190 && sent <= 210, "a second of 200 requests per second: " + lines.get(1));
        assertEquals(sent, Long.parseLong(cells[5]), "every request of the window answered: " + lines.get(1));
        Map<?, ?> server = new ObjectMapper().readValue(report.toFile(), Map.class);
        Map<?, ?> roundTrips = (Map<?, ?>) server.get("relayRoundTrip");
        assertEquals(30, ((Number) roundTrips.get("devices")).intValue());
        assertEquals(sent, ((Number) roundTrips.get("count")).longValue(),
                "the server counts the window's round trips only, not the warm-up's: " + roundTrips);
        assertEquals(0, ((Number) roundTrips.get("misses")).intValue());
    }
}
