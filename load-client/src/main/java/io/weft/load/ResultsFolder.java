package io.weft.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Where each run leaves its numbers: one row appended to {@code load-runs.csv}, the run's latency histogram as an
 * HdrHistogram log ({@code latency-*.hlog}, nanoseconds) and a PNG of its percentile distribution
 * ({@link LatencyChart}); from a session's second run on, also {@code latency-<session>-<transport>-runs.png}, every
 * run of the session overlaid. Called by the main thread after a run.
 */
final class ResultsFolder {
    static final String CSV = "load-runs.csv";
    private static final String HEADER = "time,transport,clients,rooms,rooms_per_client,batches,batch_size,"
            + "batch_pause_us,message_size,randomize,expected,received,duplicates,publish_failures,"
            + "outgoing_ms,outgoing_msg_per_s,incoming_ms,incoming_msg_per_s,"
            + "latency_min_us,latency_avg_us,latency_p50_us,latency_p90_us,latency_p99_us,latency_p999_us,"
            + "latency_max_us,chart";
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    private final Path folder;
    private final String session = STAMP.format(LocalDateTime.now());
    private final List<LatencyChart.Series> runs = new ArrayList<>();

    ResultsFolder(Path folder) {
        this.folder = folder;
    }

    /**
     * Writes the run's chart, histogram log and CSV row, and the session's overlay from its second run on.
     *
     * @param nanos the run's latencies, in nanoseconds
     * @return the run's chart
     */
    Path record(LoadConfig config, RunConfig run, Scenario.Outcome sent, Measurement measured,
            LatencySummary latency, Histogram nanos) throws IOException {
        Files.createDirectories(folder);
        LocalDateTime now = LocalDateTime.now();
        String base = String.format(Locale.ROOT, "latency-%s-%s-%dc", STAMP.format(now), config.transport(),
                run.clients());
        Path chart = folder.resolve(base + ".png");
        String legend = String.format(Locale.ROOT, "%s, %d clients", config.transport(), run.clients());
        LatencyChart.Series series = LatencyChart.series(legend, nanos, 1_000_000);
        LatencyChart.write(chart, title(config, run), List.of(series));
        LatencyChart.writeLog(folder.resolve(base + ".hlog"), nanos, "ns");
        runs.add(new LatencyChart.Series("run " + (runs.size() + 1) + " - " + series.name(), series.percentiles(),
                series.millis(), series.maxMillis()));
        if (runs.size() > 1) {
            LatencyChart.write(folder.resolve(String.format(Locale.ROOT, "latency-%s-%s-runs.png", session,
                    config.transport())), String.format(Locale.ROOT, "Latency by percentile - %s, this session's %d runs",
                    config.transport(), runs.size()), runs);
        }
        appendRow(now, config, run, sent, measured, latency, base + ".png");
        return chart;
    }

    private void appendRow(LocalDateTime now, LoadConfig config, RunConfig run, Scenario.Outcome sent,
            Measurement measured, LatencySummary latency, String chart) throws IOException {
        long outMs = sent.elapsedNanos() / 1_000_000;
        long inNanos = measured.incomingNanos();
        String row = String.join(",", List.of(
                now.toString(), config.transport(), str(run.clients()), str(config.rooms()),
                str(config.roomsPerClient()), str(run.batches()), str(run.batchSize()), str(run.batchPauseMicros()),
                str(run.messageSize()), String.valueOf(run.randomize()), str(sent.expected()),
                str(measured.messages()), str(measured.duplicates()), str(sent.publishFailures().sum()),
                str(outMs), str(sent.messages() * 1_000_000_000L / Math.max(1, sent.elapsedNanos())),
                str(inNanos / 1_000_000), str(inNanos == 0 ? 0 : measured.messages() * 1_000_000_000L / inNanos),
                str(latency.min()), String.format(Locale.ROOT, "%.1f", latency.avg()), str(latency.p50()),
                str(latency.p90()), str(latency.p99()), str(latency.p999()), str(latency.max()), chart));
        CsvFile.append(folder.resolve(CSV), HEADER, row);
    }

    private static String title(LoadConfig config, RunConfig run) {
        return String.format(Locale.ROOT, "Latency by percentile - %s, %d clients, %d rooms, %d x %d msgs every %d µs",
                config.transport(), run.clients(), config.rooms(), run.batches(), run.batchSize(),
                run.batchPauseMicros());
    }

    private static String str(long value) {
        return Long.toString(value);
    }
}
