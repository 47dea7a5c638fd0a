package io.weft.load;

import io.weft.server.api.Latency;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * One load-client session on the main thread: connect the clients, run the scenario, measure, report; again with new
 * settings (interactive) or once ({@code --auto}); then disconnect every client, oldest first.
 */
final class LoadSession {
    private static final long SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final LoadConfig config;
    private final LoadClient settings;
    private final Prompter prompter;
    private final PrintStream out;
    private final long seed;
    private final int stallSeconds;

    /**
     * A run's outcome as the report states it.
     *
     * @param expected deliveries the server should have made
     * @param received deliveries the clients counted, duplicates included
     * @param duplicates deliveries of a message a client had already received
     * @param publishFailures publishes refused or lost
     * @param latency the latency summary (empty when latency is not recorded)
     */
    record RunResult(long expected, long received, long duplicates, long publishFailures, LatencySummary latency) {
        /** Every expected message arrived, exactly once, and every publish succeeded. */
        boolean complete() {
            return received == expected && duplicates == 0 && publishFailures == 0;
        }
    }

    LoadSession(LoadConfig config, LoadClient settings, Prompter prompter, PrintStream out, long seed,
            int stallSeconds) {
        this.config = config;
        this.settings = settings;
        this.prompter = prompter;
        this.out = out;
        this.seed = seed;
        this.stallSeconds = stallSeconds;
    }

    /** @return the last run's result, or null when no run took place */
    RunResult run() throws Exception {
        out.printf("Load client: %s over %s, %d rooms, %d room(s) per client, seed %d%n", config.url(),
                config.transport(), config.rooms(), config.roomsPerClient(), seed);
        Measurement measurement = new Measurement(config.recordLatency());
        ResultsFolder results = new ResultsFolder(config.results());
        RunResult last = null;
        try (ClientRuntime runtime = ClientRuntime.of(config);
                ServerProbe probe = new ServerProbe(runtime, config.url())) {
            Fleet fleet = new Fleet(config, runtime, measurement, seed);
            Scenario scenario = new Scenario(config, seed + 1, new AtomicLong());
            int clients = LoadClient.DEFAULT_CLIENTS;
            RunConfig previous = null;
            for (boolean first = true; ; first = false) {
                out.println();
                out.println("-----");
                clients = settings.clients(prompter, clients, first);
                if (clients <= 0 || (!first && prompter.ended())) {
                    break;
                }
                out.println("Waiting for clients to be ready...");
                fleet.resize(clients);
                if (!fleet.awaitReady(out, stallSeconds)) {
                    break;
                }
                RunConfig run = settings.run(prompter, clients, previous);
                previous = run;
                last = runOnce(run, fleet, scenario, measurement, probe, results);
                out.println(runtime.threadUse() + " client threads");
                if (prompter.ended() && !first) {
                    break;
                }
            }
            out.printf("Disconnecting %d clients%n", fleet.size());
            fleet.disconnectAll();
        }
        out.println("Load client done");
        return last;
    }

    private RunResult runOnce(RunConfig run, Fleet fleet, Scenario scenario, Measurement measurement,
            ServerProbe probe, ResultsFolder results) throws Exception {
        measurement.reset();
        fleet.newRun(scenario.nextId());
        boolean serverStats = probe.start();
        Latency serverLatencyBefore = probe.deliveryLatency();
        out.println();
        out.printf("Testing %d clients in %d rooms, %d rooms/client%n", fleet.size(), config.rooms(),
                config.roomsPerClient());
        out.printf("Sending %d batches of %dx%d bytes messages every %d µs%n", run.batches(), run.batchSize(),
                run.messageSize(), run.batchPauseMicros());

        Scenario.Outcome sent = scenario.run(run, fleet.members(), fleet.rooms());
        Report.outgoing(out, run, sent);
        awaitMessages(sent.expected(), measurement);

        Latency serverLatencyAfter = serverLatencyBefore == null ? null : probe.deliveryLatency();
        Map<String, Object> server = serverStats ? probe.stop() : null;
        Histogram nanos = measurement.latencies();
        LatencySummary latency = LatencySummary.of(nanos);
        Report.arrivals(out, run, sent, measurement);
        Report.latency(out, latency);
        Report.serverLatency(out, serverLatencyAfter == null ? null : serverLatencyAfter.since(serverLatencyBefore));
        if (server != null) {
            ServerMonitor.lines(server).forEach(out::println);
        } else {
            out.println("Server - no statistics (the server has no /service/load services)");
        }
        try {
            Path chart = results.record(config, run, sent, measurement, latency, nanos);
            out.printf("Results: %s (row appended), %s%n", config.results().resolve(ResultsFolder.CSV).toAbsolutePath(),
                    chart.toAbsolutePath());
        } catch (Exception x) {
            out.println("Results not written: " + x);
        }
        return new RunResult(sent.expected(), measurement.messages(), measurement.duplicates(),
                sent.publishFailures().sum(), latency);
    }

    /**
     * Prints progress until every expected message arrived (then waits for a short quiet spell, so late duplicates
     * are counted), or until nothing arrives for {@code stallSeconds}.
     */
    private void awaitMessages(long expected, Measurement measurement) throws InterruptedException {
        long last = -1;
        long lastChange = System.nanoTime();
        while (true) {
            long arrived = measurement.messages();
            long now = System.nanoTime();
            if (arrived != last) {
                last = arrived;
                lastChange = now;
            }
            if (arrived >= expected && now - lastChange >= SETTLE_NANOS) {
                out.printf("All messages arrived %d/%d%n", arrived, expected);
                return;
            }
            if (now - lastChange > TimeUnit.SECONDS.toNanos(stallSeconds)) {
                out.printf("Interrupting wait for messages %d/%d%n", arrived, expected);
                return;
            }
            if (arrived < expected) {
                Report.progress(out, arrived, expected);
            }
            Thread.sleep(arrived < expected ? 500 : 100);
        }
    }
}
