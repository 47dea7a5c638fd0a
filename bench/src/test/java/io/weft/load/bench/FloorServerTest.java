package io.weft.load.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.load.floor.FloorServer;
import io.weft.server.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * The floor server carries the bench's chat load as Weft does: a short ladder through the bench's command line over
 * each of its transports, in which every message of each window arrived, and every session left at the end.
 */
@Timeout(120)
class FloorServerTest {
    private FloorServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = new FloorServer().start("127.0.0.1", 0, 2);
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling", "lean-websocket", "lean-long-polling"})
    void theLaddersMessagesAllArrive(String transport, @TempDir Path results) throws Exception {
        Path csv = results.resolve("ladder.csv");
        String url = "http://127.0.0.1:" + server.port() + "/cometd";

        int exit = new CommandLine(new Bench()).execute("ladder", "--server=floor", "--urls=" + url,
                "--transport=" + transport, "--clients=40", "--rooms=4", "--size=50", "--rates=500,1000", "--burst=1",
                "--prewarm-ms=0", "--warmup-ms=200", "--measure-ms=1000", "--knee-p99-ms=60000",
                "--server-pid=" + ProcessHandle.current().pid(), "--label=test", "--csv=" + csv);

        assertEquals(0, exit);
        List<String> lines = Files.readAllLines(csv);
        assertEquals(LadderStep.HEADER, lines.get(0));
        assertEquals(3, lines.size(), "a row per rate: " + lines);
        for (String row : lines.subList(1, 3)) {
            String[] cells = row.split(",", -1);
            assertEquals("floor", cells[0]);
            assertTrue(Long.parseLong(cells[8]) > 0, "messages expected in the window: " + row);
            assertEquals(cells[8], cells[9], "every expected message received: " + row);
            assertEquals("0.00", cells[10], row);
        }
        Await.until(Duration.ofSeconds(10), () -> server.sessions() == 0, "every session ended");
    }
}
