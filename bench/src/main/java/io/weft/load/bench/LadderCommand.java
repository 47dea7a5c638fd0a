package io.weft.load.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ladder}: the flags of a {@link Ladder}; the clients are opened, the ladder climbed, the clients closed. */
@Command(name = "ladder", mixinStandardHelpOptions = true, sortOptions = false,
        description = "The chat load at rising offered rates up to the server's knee; a CSV row per rate.")
final class LadderCommand implements Callable<Integer> {
    @Mixin
    ClientOptions clients;

    @Option(names = "--server", defaultValue = "weft",
            description = "The server's name in the CSV [${DEFAULT-VALUE}].")
    String server;

    @Option(names = "--server-pid", defaultValue = "-1",
            description = "The server's process id, for its CPU per rung (-1: not measured) [${DEFAULT-VALUE}].")
    long serverPid;

    @Option(names = "--clients", defaultValue = "1000",
            description = "Clients; client i is in room i mod rooms [${DEFAULT-VALUE}].")
    int clientCount;

    @Option(names = "--rooms", defaultValue = "100", description = "Rooms [${DEFAULT-VALUE}].")
    int rooms;

    @Option(names = "--size", defaultValue = "50", description = "Bytes of data per message, about [${DEFAULT-VALUE}].")
    int size;

    @Option(names = "--rates", split = ",", defaultValue = "1000,2000,5000,10000,20000",
            description = "Offered rates, deliveries per second, climbed in order [${DEFAULT-VALUE}].")
    List<Long> rates;

    @Option(names = "--prewarm-ms", defaultValue = "10000",
            description = "An unrecorded first rung, ms (0: none) [${DEFAULT-VALUE}].")
    long prewarmMs;

    @Option(names = "--prewarm-rate", defaultValue = "0",
            description = "The prewarm's offered rate (0: the first rate). A rate the clients' JVM keeps up with lets "
                    + "its JIT finish before the ladder climbs [${DEFAULT-VALUE}].")
    long prewarmRate;

    @Option(names = "--warmup-ms", defaultValue = "3000", description = "Each rung's warm-up, ms [${DEFAULT-VALUE}].")
    long warmupMs;

    @Option(names = "--measure-ms", defaultValue = "8000",
            description = "Each rung's measured window, ms [${DEFAULT-VALUE}].")
    long measureMs;

    @Option(names = "--burst", defaultValue = "10", description = "Messages per burst [${DEFAULT-VALUE}].")
    int burst;

    @Option(names = "--knee-p99-ms", defaultValue = "1000",
            description = "A rung whose p99 exceeds this (ms) is past the knee [${DEFAULT-VALUE}].")
    double kneeP99Ms;

    @Option(names = "--csv", defaultValue = "chat.csv",
            description = "CSV file rows are appended to [${DEFAULT-VALUE}].")
    Path csv;

    @Option(names = "--label", defaultValue = "", description = "The CSV's label column, and the hlog files' suffix.")
    String label;

    @Option(names = "--hlog-dir", description = "Folder for each rung's latency histogram (.hlog, ns).")
    Path hlogDir;

    @Override
    public Integer call() throws Exception {
        Ladder ladder = new Ladder(plan(), System.out, System.err);
        try (ChatLoad load = ChatLoad.open(clients, clientCount, rooms, ladder.arrivals())) {
            ladder.climb(load);
        }
        return 0;
    }

    Ladder.Plan plan() {
        return new Ladder.Plan(server, clients.transport, clientCount, rooms, size, rates, prewarmMs, prewarmRate,
                warmupMs, measureMs, burst, kneeP99Ms, label, serverPid, csv, hlogDir);
    }
}
