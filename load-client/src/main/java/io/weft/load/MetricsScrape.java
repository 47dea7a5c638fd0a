package io.weft.load;

import io.weft.load.MetricsPanels.Line;
import io.weft.load.MetricsPanels.Mark;
import io.weft.load.MetricsPanels.Panel;
import io.weft.load.MetricsPanels.Scrape;
import io.weft.load.PrometheusText.Sample;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A server's Prometheus metrics charted over a run, where no Prometheus and Grafana run: polls a {@code /metrics}
 * endpoint every {@code --interval} seconds for {@code --duration} seconds (or until SIGTERM or Ctrl+C), then writes
 * into {@code --out} {@code metrics.csv} (one row per scrape, one column per charted line), one PNG per chart and
 * {@code overview.png} with all of them ({@link MetricsPanels} says what is charted). {@code --marks} draws the
 * run's phases. This class is the command: its flags, the polling on a fixed schedule, and the files.
 *
 * <pre>java -cp &lt;classpath&gt; io.weft.load.MetricsScrape --url=http://127.0.0.1:8080/metrics --duration=300</pre>
 */
@Command(name = "MetricsScrape", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Scrapes a Prometheus /metrics endpoint over a run and charts Weft's metrics as PNGs and a CSV.")
public final class MetricsScrape implements Callable<Integer> {
    static final String CSV = "metrics.csv";
    static final String OVERVIEW = "overview.png";
    /** Each chart's size in pixels: wide enough for a legend of four lines and their peaks in one row. */
    static final int WIDTH = 960;
    static final int HEIGHT = 400;

    @Option(names = "--url", required = true, description = "The endpoint, e.g. http://127.0.0.1:8080/metrics.")
    URI url;

    @Option(names = "--interval", defaultValue = "2", description = "Seconds between scrapes [${DEFAULT-VALUE}].")
    double interval;

    @Option(names = "--duration", required = true,
            description = "Seconds to scrape at most; SIGTERM or Ctrl+C ends it sooner, and the files are written.")
    double duration;

    @Option(names = "--out", defaultValue = "target/metrics-scrape",
            description = "Folder for metrics.csv and the PNGs [${DEFAULT-VALUE}].")
    Path out;

    @Option(names = "--marks", description = "A file of '<epoch ms> <label>' lines, the run's phases, drawn as "
            + "labelled vertical lines; read when scraping ends.")
    Path marks;

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(new CommandLine(new MetricsScrape()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!(interval > 0) || !(duration > 0)) {
            System.err.println("--interval and --duration must be more than 0 seconds");
            return 2;
        }
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch written = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stop.countDown();
            try {
                written.await(60, TimeUnit.SECONDS); // the files are written before the JVM goes
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        }, "metrics-scrape-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        List<Scrape> scrapes;
        try {
            scrapes = poll(stop, System.err);
            List<Mark> phases = marks == null ? List.of() : readMarks(marks, scrapes);
            write(out, scrapes, phases, System.out);
        } finally {
            written.countDown();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // Stopped by a signal: the hook only waited for the files.
        }
        return scrapes.isEmpty() ? 1 : 0;
    }

    /** Scrapes on a fixed schedule until the duration is over or {@code stop} is counted down. */
    private List<Scrape> poll(CountDownLatch stop, PrintStream log) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        Duration timeout = Duration.ofMillis(Math.max(1_000, Math.min(5_000, (long) (interval * 1_000))));
        List<Scrape> scrapes = new ArrayList<>();
        long start = System.nanoTime();
        long startEpoch = System.currentTimeMillis();
        long step = (long) (interval * 1e9);
        long end = start + (long) (duration * 1e9);
        int failures = 0;
        for (long slot = 0; start + slot * step <= end; slot++) {
            long wait = start + slot * step - System.nanoTime();
            if (stop.await(Math.max(0, wait), TimeUnit.NANOSECONDS)) {
                break;
            }
            long at = System.nanoTime();
            slot = Math.max(slot, (at - start) / step); // a slow scrape skips the slots it missed
            try {
                List<Sample> samples = PrometheusText.parse(fetch(http, url, timeout));
                scrapes.add(new Scrape(startEpoch + (at - start) / 1_000_000, (at - start) / 1e9, samples));
            } catch (IOException | IllegalArgumentException x) {
                if (failures++ < 5) {
                    log.println("scrape failed at " + Math.round((at - start) / 1e9) + " s: " + x);
                }
            }
        }
        log.printf(Locale.ROOT, "%d scrapes, %d failed%n", scrapes.size(), failures);
        return scrapes;
    }

    /** GET {@code url}, 200 only. */
    static String fetch(HttpClient http, URI url, Duration timeout) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(url).timeout(timeout).GET().build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (response.statusCode() != 200) {
            throw new IOException("HTTP " + response.statusCode() + " from " + url);
        }
        return response.body();
    }

    /** The marks file's lines ({@code <epoch ms> <label>}) relative to the first scrape; others are skipped. */
    static List<Mark> readMarks(Path file, List<Scrape> scrapes) throws IOException {
        if (scrapes.isEmpty() || !Files.exists(file)) {
            return List.of();
        }
        Scrape first = scrapes.get(0);
        long startEpoch = first.epochMillis() - Math.round(first.seconds() * 1_000);
        List<Mark> result = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String[] parts = line.strip().split("\\s+", 2);
            if (parts.length == 2 && parts[0].matches("\\d+")) {
                result.add(new Mark((Long.parseLong(parts[0]) - startEpoch) / 1e3, parts[1]));
            }
        }
        return result;
    }

    /** Writes metrics.csv, a PNG per panel and overview.png into {@code folder}. */
    static void write(Path folder, List<Scrape> scrapes, List<Mark> phases, PrintStream log) throws IOException {
        Files.createDirectories(folder);
        List<Panel> panels = MetricsPanels.panels(scrapes);
        writeCsv(folder.resolve(CSV), scrapes, panels);
        log.println("wrote " + folder.resolve(CSV));
        List<BufferedImage> images = new ArrayList<>();
        for (Panel panel : panels) {
            BufferedImage image = BitmapEncoder.getBufferedImage(
                    MetricsPanels.chart(panel, scrapes, phases, WIDTH, HEIGHT));
            ImageIO.write(image, "png", folder.resolve(panel.file()).toFile());
            images.add(image);
            log.println("wrote " + folder.resolve(panel.file()));
        }
        if (panels.stream().noneMatch(p -> p.file().equals(MetricsPanels.PROBLEMS))) {
            log.println("no errors, slow consumers or refusals during the scrapes: no problems.png");
        }
        ImageIO.write(MetricsPanels.grid(images, 2), "png", folder.resolve(OVERVIEW).toFile());
        log.println("wrote " + folder.resolve(OVERVIEW));
    }

    private static void writeCsv(Path file, List<Scrape> scrapes, List<Panel> panels) throws IOException {
        Set<String> seen = new LinkedHashSet<>();
        List<Line> columns = new ArrayList<>();
        for (Panel panel : panels) {
            for (Line line : panel.lines()) {
                if (seen.add(line.column())) {
                    columns.add(line);
                }
            }
        }
        try (Writer csv = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            csv.write("t_s,epoch_ms");
            for (Line line : columns) {
                csv.write("," + line.column());
            }
            csv.write("\n");
            for (int i = 0; i < scrapes.size(); i++) {
                Scrape scrape = scrapes.get(i);
                csv.write(String.format(Locale.ROOT, "%.3f,%d", scrape.seconds(), scrape.epochMillis()));
                for (Line line : columns) {
                    double value = line.values()[i];
                    csv.write(Double.isFinite(value) ? String.format(Locale.ROOT, ",%.3f", value) : ",");
                }
                csv.write("\n");
            }
        }
    }
}
