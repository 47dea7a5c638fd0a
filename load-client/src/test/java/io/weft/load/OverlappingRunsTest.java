package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two load clients whose runs overlap on one load server each get the server's report over their own run: the first
 * one's stop does not end the second one's run (which then reported 0 ms and nothing of what happened in it).
 */
@Timeout(60)
class OverlappingRunsTest {
    @Test
    void eachRunIsReportedFromItsOwnStart() throws Exception {
        try (LoadServer.Running server = LoadServer.start("127.0.0.1", 0, "/cometd", 16, ServerOptions.defaults(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
                ClientRuntime runtime = new ClientRuntime("websocket", 8, false, false)) {
            String url = "http://127.0.0.1:" + server.port() + "/cometd";
            try (ServerProbe first = new ServerProbe(runtime, url); ServerProbe second = new ServerProbe(runtime, url)) {
                // The server takes a run's start before it answers start(), and its end after stop() is sent: its
                // report covers at least what the client saw in between, whatever else stopped meanwhile.
                assertTrue(first.start());
                long firstStarted = System.nanoTime();
                assertTrue(second.start());
                long secondStarted = System.nanoTime();
                long firstStopping = System.nanoTime();
                Map<String, Object> firstReport = first.stop();
                long secondStopping = System.nanoTime(); // after the first run's stop: the second run goes on
                Map<String, Object> secondReport = second.stop();

                assertTrue(elapsedNanos(firstReport) >= firstStopping - firstStarted, "the first run's report: "
                        + firstReport);
                assertTrue(elapsedNanos(secondReport) >= secondStopping - secondStarted,
                        "the second run's report, not cut by the first's stop: " + secondReport);
            }
        }
    }

    private static long elapsedNanos(Map<String, Object> report) {
        return ((Number) report.get("elapsedNanos")).longValue();
    }
}
