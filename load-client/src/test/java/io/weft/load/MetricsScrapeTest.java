package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.weft.load.MetricsPanels.Mark;
import io.weft.load.MetricsPanels.Scrape;
import io.weft.load.PrometheusText.Sample;
import io.weft.server.api.ServerOptions;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsScrapeTest {
    /** The dashboard in the docs, from the module's folder (where Maven runs the tests). */
    private static final Path DASHBOARD = Path.of(System.getProperty("basedir", "."), "..", "docs", "operations",
            "weft-dashboard.json");
    /** Labels Prometheus adds to every series it scrapes: not in the /metrics text. */
    private static final Set<String> TARGET_LABELS = Set.of("job", "instance");
    private static final Pattern METRIC = Pattern.compile("\\b(?:weft|jvm|process|system)_[a-z0-9_]+\\b");
    private static final Pattern SELECTOR = Pattern.compile("\\b([a-z_:][a-z0-9_:]*)\\{([^}]*)}");
    private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_]\\w*)\\s*(=~|!~|!=|=)\\s*\"([^\"]*)\"");
    private static final Pattern GROUPING = Pattern.compile("\\b(?:by|without)\\s*\\(([^)]*)\\)");
    private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*(\\w+)\\s*}}");

    @Test
    void samplesAreReadWithTheirLabelsEscapesAndSpecialValues() {
        String text = """
                # HELP weft_sessions live sessions
                # TYPE weft_sessions gauge
                weft_sessions{connection_type="websocket"} 300.0
                weft_channels 4.0

                jvm_gc_max_data_size_bytes 2.147483648E9
                odd{path="a,b}c",quote="say \\"hi\\"",slash="C:\\\\x",nl="one\\ntwo",} 1 1700000000000
                spaced { a = "1" , b="2" }\t-Inf
                gone{x=""} NaN
                big +Inf
                """;

        List<Sample> samples = PrometheusText.parse(text);

        assertEquals(7, samples.size());
        assertEquals(new Sample("weft_sessions", Map.of("connection_type", "websocket"), 300), samples.get(0));
        assertEquals(new Sample("weft_channels", Map.of(), 4), samples.get(1));
        assertEquals(2_147_483_648.0, samples.get(2).value());
        Sample odd = samples.get(3);
        assertEquals(Map.of("path", "a,b}c", "quote", "say \"hi\"", "slash", "C:\\x", "nl", "one\ntwo"), odd.labels());
        assertEquals(1.0, odd.value(), "the timestamp is not the value");
        assertEquals(new Sample("spaced", Map.of("a", "1", "b", "2"), Double.NEGATIVE_INFINITY), samples.get(4));
        assertEquals("", samples.get(5).labels().get("x"));
        assertTrue(Double.isNaN(samples.get(5).value()));
        assertEquals(Double.POSITIVE_INFINITY, samples.get(6).value());
    }

    @Test
    void aLineThatIsNotASampleIsRefusedByItsNumber() {
        for (String bad : List.of("weft_sessions{connection_type=\"websocket} 1", "weft_sessions{a=b} 1",
                "weft_sessions", "weft_sessions 1 2 3", "weft_sessions x", "{a=\"b\"} 1")) {
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                    () -> PrometheusText.parse("# ok\nweft_channels 1\n" + bad + "\n"), bad);
            assertTrue(x.getMessage().startsWith("line 3: "), x.getMessage());
        }
    }

    @Test
    void ratesAreIncreasesPerSecondBetweenScrapesAndSurviveARestart(@TempDir Path folder) throws Exception {
        List<Scrape> scrapes = List.of(
                scrape(0, 0, 0, 100, 0),
                scrape(2, 2_000, 500, 100, 0),
                scrape(4, 6_000, 1_500, 200, 0),
                scrape(6, 1_000, 300, 50, 3)); // the server restarted: counters from zero
        ByteArrayOutputStream log = new ByteArrayOutputStream();

        MetricsScrape.write(folder, scrapes, List.of(new Mark(1, "phase one"), new Mark(3.5, "phase two")),
                new PrintStream(log, true, StandardCharsets.UTF_8));

        List<String> csv = Files.readAllLines(folder.resolve(MetricsScrape.CSV));
        List<String> columns = List.of(csv.get(0).split(",", -1));
        assertEquals(5, csv.size(), "a header and a row per scrape");
        assertEquals("", cell(csv, columns, 1, "deliveries_per_s_websocket"), "no rate at the first scrape");
        assertEquals("1000.000", cell(csv, columns, 2, "deliveries_per_s_websocket"));
        assertEquals("2000.000", cell(csv, columns, 3, "deliveries_per_s_websocket"));
        assertEquals("500.000", cell(csv, columns, 4, "deliveries_per_s_websocket"), "1,000 since the restart");
        assertEquals("500.000", cell(csv, columns, 3, "received_per_s"));
        assertEquals("2000.000", cell(csv, columns, 3, "written_mib_per_s_websocket"), "a MiB per delivery here");
        assertEquals("200.000", cell(csv, columns, 3, "sessions_websocket"));
        assertEquals("12.500", cell(csv, columns, 2, "latency_p99_ms"));
        assertEquals("64.000", cell(csv, columns, 2, "heap_used_mib"), "the heap pools summed");
        assertEquals("1.500", cell(csv, columns, 4, "refusals_per_s_maxQueue"));
        assertFalse(columns.contains("sessions_long_polling"), "a connection type never used is not charted");
        assertFalse(columns.contains("refusals_per_s_maxSessions"), "a limit never hit is not charted");
        MetricsPanels.Panel deliveries = MetricsPanels.panels(scrapes).stream()
                .filter(panel -> panel.file().equals("deliveries.png")).findFirst().orElseThrow();
        assertEquals(Set.of("websocket, max 2,000"),
                MetricsPanels.chart(deliveries, scrapes, List.of(), 800, 400).getSeriesCollection().stream()
                        .map(series -> series.getName()).collect(Collectors.toSet()),
                "one line, its peak in the legend in plain decimals");

        for (String png : List.of("sessions.png", "deliveries.png", "written.png", "received.png", "latency.png",
                "heap.png", "cpu.png", MetricsPanels.PROBLEMS)) {
            BufferedImage image = ImageIO.read(folder.resolve(png).toFile());
            assertEquals(MetricsScrape.WIDTH, image.getWidth(), png);
            assertEquals(MetricsScrape.HEIGHT, image.getHeight(), png);
        }
        BufferedImage overview = ImageIO.read(folder.resolve(MetricsScrape.OVERVIEW).toFile());
        assertEquals(2 * MetricsScrape.WIDTH, overview.getWidth());
        assertEquals(4 * MetricsScrape.HEIGHT, overview.getHeight(), "eight charts, two a row");
    }

    @Test
    void withoutErrorsOrRefusalsThereIsNoProblemsChart() {
        List<MetricsPanels.Panel> panels = MetricsPanels.panels(List.of(scrape(0, 0, 0, 10, 0),
                scrape(2, 10, 5, 10, 0)));

        assertEquals(List.of("sessions.png", "deliveries.png", "written.png", "received.png", "latency.png",
                "heap.png", "cpu.png"), panels.stream().map(MetricsPanels.Panel::file).toList());
    }

    /**
     * Every metric the Grafana dashboard queries, every label it groups by, matches on or prints, and every label
     * value it matches literally, is in what the load server's GET /metrics serves.
     */
    @Test
    void theDashboardQueriesOnlyWhatTheServerServes() throws Exception {
        List<String[]> targets = dashboardTargets(); // {expr, legendFormat}
        assertTrue(targets.size() >= 15, "the dashboard's queries were found: " + targets.size());
        List<Sample> served;
        try (LoadServer.Running server = LoadServer.start("127.0.0.1", 0, "/cometd", 16, ServerOptions.defaults(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))) {
            served = PrometheusText.parse(MetricsScrape.fetch(HttpClient.newHttpClient(),
                    URI.create("http://127.0.0.1:" + server.port() + "/metrics"), Duration.ofSeconds(5)));
        }
        Set<String> checked = new TreeSet<>();
        List<String> problems = new ArrayList<>();
        for (String[] target : targets) {
            String expr = target[0];
            Set<String> metrics = new HashSet<>();
            Matcher names = METRIC.matcher(expr);
            while (names.find()) {
                metrics.add(names.group());
            }
            if (metrics.isEmpty()) {
                problems.add("no metric in " + expr);
            }
            for (String metric : metrics) {
                if (served.stream().noneMatch(s -> s.name().equals(metric))) {
                    problems.add(metric + " is not served (" + expr + ")");
                }
                checked.add(metric);
            }
            Matcher selectors = SELECTOR.matcher(expr);
            while (selectors.find()) {
                Matcher matchers = MATCHER.matcher(selectors.group(2));
                while (matchers.find()) {
                    checkLabel(served, Set.of(selectors.group(1)), matchers.group(1), matchers.group(2),
                            matchers.group(3), expr, problems);
                }
            }
            Matcher grouping = GROUPING.matcher(expr);
            while (grouping.find()) {
                for (String label : grouping.group(1).split(",")) {
                    checkLabel(served, metrics, label.strip(), null, null, expr, problems);
                }
            }
            Matcher legend = LEGEND_LABEL.matcher(target[1]);
            while (legend.find()) {
                checkLabel(served, metrics, legend.group(1), null, null, expr, problems);
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        assertTrue(checked.containsAll(Set.of("weft_sessions", "weft_deliveries_total", "weft_messages_received_total",
                "weft_delivery_latency_seconds", "weft_connects_held", "weft_handshakes_total", "weft_errors_total",
                "weft_refusals_total", "weft_slow_consumers_total", "jvm_memory_used_bytes", "process_cpu_usage")),
                "the panels the operations guide describes: " + checked);
    }

    /** A label must be on some served sample of one of {@code metrics}; a literal value ({@code =}, or each {@code |}
     *  alternative of a plain {@code =~}) must be one such sample's value. */
    private static void checkLabel(List<Sample> served, Set<String> metrics, String label, String op, String value,
            String expr, List<String> problems) {
        if (TARGET_LABELS.contains(label)) {
            return;
        }
        List<Sample> withLabel = served.stream()
                .filter(s -> metrics.contains(s.name()) && s.labels().containsKey(label)).toList();
        if (withLabel.isEmpty()) {
            problems.add("no label " + label + " on " + metrics + " (" + expr + ")");
            return;
        }
        List<String> literals = "=".equals(op) ? List.of(value)
                : "=~".equals(op) && value.matches("[\\w.|-]+") ? List.of(value.split("\\|")) : List.of();
        for (String literal : literals) {
            if (withLabel.stream().noneMatch(s -> literal.equals(s.labels().get(label)))) {
                problems.add(label + "=\"" + literal + "\" is never served on " + metrics + " (" + expr + ")");
            }
        }
    }

    /** Each query of the dashboard ({@code expr} and its {@code legendFormat}); the parser also proves it is JSON. */
    private static List<String[]> dashboardTargets() throws Exception {
        List<String[]> targets = new ArrayList<>();
        try (JsonParser json = new JsonFactory().createParser(DASHBOARD.toFile())) {
            String[] current = null;
            for (JsonToken token = json.nextToken(); token != null; token = json.nextToken()) {
                if (token == JsonToken.FIELD_NAME && "expr".equals(json.currentName())) {
                    current = new String[] {json.nextTextValue(), ""};
                    targets.add(current);
                } else if (token == JsonToken.FIELD_NAME && "legendFormat".equals(json.currentName())
                        && current != null) {
                    current[1] = json.nextTextValue();
                }
            }
        }
        return targets;
    }

    /**
     * A scrape at {@code seconds}: websocket counters and gauges (a MiB written per delivery), a latency, two heap
     * pools, maxQueue refusals.
     */
    private static Scrape scrape(double seconds, double deliveries, double received, double sessions,
            double refusals) {
        String text = """
                weft_sessions{connection_type="long-polling"} 0.0
                weft_sessions{connection_type="websocket"} %s
                weft_connects_held %s
                weft_deliveries_total{connection_type="long-polling"} 0.0
                weft_deliveries_total{connection_type="websocket"} %s
                weft_messages_received_total %s
                weft_written_bytes_total{connection_type="websocket"} %s
                weft_delivery_latency_seconds{quantile="0.5"} 0.002
                weft_delivery_latency_seconds{quantile="0.99"} 0.0125
                weft_errors_total 0.0
                weft_slow_consumers_total 0.0
                weft_refusals_total{limit="maxQueue"} %s
                weft_refusals_total{limit="maxSessions"} 0.0
                jvm_memory_used_bytes{area="heap",id="G1 Eden Space"} 3.3554432E7
                jvm_memory_used_bytes{area="heap",id="G1 Old Gen"} 3.3554432E7
                jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 1.0E9
                jvm_memory_committed_bytes{area="heap",id="G1 Old Gen"} 1.34217728E8
                process_cpu_usage 0.25
                system_cpu_usage 0.5
                system_cpu_count 2.0
                """.formatted(sessions, sessions, deliveries, received, deliveries * 1_048_576, refusals);
        return new Scrape(1_700_000_000_000L + (long) (seconds * 1_000), seconds, PrometheusText.parse(text));
    }

    private static String cell(List<String> csv, List<String> columns, int row, String column) {
        assertTrue(columns.contains(column), column + " in " + columns);
        return csv.get(row).split(",", -1)[columns.indexOf(column)];
    }
}
