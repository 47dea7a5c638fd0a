package io.weft.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;

/**
 * Where each run leaves its numbers: one row appended to {@code load-runs.csv} and one PNG of the latency
 * distribution, drawn headless with XChart. Called by the main thread after a run.
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

    ResultsFolder(Path folder) {
        this.folder = folder;
    }

    /** Writes the run's chart and CSV row. @return the chart's path */
    Path record(LoadConfig config, RunConfig run, Scenario.Outcome sent, Measurement measured,
            LatencySummary latency) throws IOException {
        Files.createDirectories(folder);
        LocalDateTime now = LocalDateTime.now();
        String name = String.format(Locale.ROOT, "latency-%s-%s-%dc.png", STAMP.format(now), config.transport(),
                run.clients());
        Path chart = folder.resolve(name);
        writeChart(chart, config, run, latency);
        appendRow(now, config, run, sent, measured, latency, name);
        return chart;
    }

    private void appendRow(LocalDateTime now, LoadConfig config, RunConfig run, Scenario.Outcome sent,
            Measurement measured, LatencySummary latency, String chart) throws IOException {
        Path csv = folder.resolve(CSV);
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
        boolean fresh = !Files.exists(csv);
        String text = (fresh ? HEADER + System.lineSeparator() : "") + row + System.lineSeparator();
        Files.writeString(csv, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static void writeChart(Path path, LoadConfig config, RunConfig run, LatencySummary latency)
            throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(500)
                .title(String.format(Locale.ROOT, "Latency - %s, %d clients, %d rooms, %d x %d msgs every %d µs",
                        config.transport(), run.clients(), config.rooms(), run.batches(), run.batchSize(),
                        run.batchPauseMicros()))
                .xAxisTitle("latency (µs, bucket upper bound)").yAxisTitle("messages").build();
        chart.getStyler().setLegendVisible(true);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        chart.getStyler().setMarkerSize(6);
        List<LatencySummary.Bucket> buckets = latency.buckets();
        double[] x = new double[Math.max(1, buckets.size())];
        double[] y = new double[x.length];
        for (int i = 0; i < buckets.size(); i++) {
            x[i] = buckets.get(i).upTo();
            y[i] = buckets.get(i).count();
        }
        XYSeries series = chart.addSeries(String.format(Locale.ROOT,
                "p50 %d µs, p99 %d µs, max %d µs", latency.p50(), latency.p99(), latency.max()), x, y);
        series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        ImageIO.write(BitmapEncoder.getBufferedImage(chart), "png", path.toFile());
    }

    private static String str(long value) {
        return Long.toString(value);
    }
}
