package io.weft.load;

import io.weft.load.PrometheusText.Sample;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.Stroke;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Annotation;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * What {@link MetricsScrape} charts, and how: the lines derived from a run's scrapes (gauges as read, counters as
 * rates between consecutive scrapes) grouped into panels, and each panel drawn with XChart against seconds since the
 * first scrape, in plain decimals, a connection type in the same colour on every chart, the run's phases marked.
 * Stateless; safe from any thread.
 */
final class MetricsPanels {
    private static final double MIB = 1024.0 * 1024.0;
    private static final BasicStroke SOLID = new BasicStroke(2f);
    private static final BasicStroke DASHED = new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
            new float[] {6f, 4f}, 0f);
    /** A connection type keeps its colour across the sessions and deliveries charts. */
    private static final Map<String, Color> TYPE_COLOURS = Map.of("websocket", new Color(31, 119, 180),
            "long-polling", new Color(255, 127, 14), "callback-polling", new Color(140, 86, 75),
            "local", new Color(148, 103, 189), "none", new Color(127, 127, 127));
    private static final Map<String, String> TYPE_LEGENDS = Map.of("none", "none (no connect yet)",
            "local", "local (server-side)");
    private static final Color[] OTHER_COLOURS = {new Color(31, 119, 180), new Color(214, 39, 40),
        new Color(44, 160, 44), new Color(255, 127, 14), new Color(148, 103, 189), new Color(140, 86, 75),
        new Color(227, 119, 194), new Color(127, 127, 127)};

    /** One scrape: when it was sent (epoch ms, and seconds since the first), and its samples. */
    record Scrape(long epochMillis, double seconds, List<Sample> samples) {
    }

    /** A labelled moment of the run, in seconds since the first scrape. */
    record Mark(double seconds, String label) {
    }

    /**
     * One charted line: its CSV column, legend, a value per scrape ({@code NaN}: none, as a first scrape's rate), and
     * its colour (null: the panel's next) and dash.
     */
    record Line(String column, String legend, double[] values, Color colour, boolean dashed) {
        Line(String column, String legend, double[] values) {
            this(column, legend, values, null, false);
        }
    }

    /** One chart: its file name, title, y axis title and lines. */
    record Panel(String file, String title, String yTitle, List<Line> lines) {
    }

    static final String PROBLEMS = "problems.png";

    private MetricsPanels() {
    }

    /** The charts of {@code scrapes}; the problems chart only when one of its lines is not zero. */
    static List<Panel> panels(List<Scrape> scrapes) {
        List<Panel> panels = new ArrayList<>();
        List<Line> sessions = new ArrayList<>(byType(scrapes, "weft_sessions", false, "sessions_"));
        Line held = gauge(scrapes, "held_connects", "held /meta/connect", "weft_connects_held", Map.of(), 1);
        sessions.add(new Line(held.column(), held.legend(), held.values(), Color.BLACK, true));
        panels.add(new Panel("sessions.png", "Sessions by connection type, and /meta/connect held", "sessions",
                sessions));
        panels.add(new Panel("deliveries.png", "Deliveries per second by connection type", "messages/s",
                byType(scrapes, "weft_deliveries_total", true, "deliveries_per_s_")));
        List<Line> written = byType(scrapes, "weft_written_bytes_total", true, "written_mib_per_s_").stream()
                .map(line -> new Line(line.column(), line.legend(), scaled(line.values(), 1 / MIB), line.colour(),
                        false))
                .toList();
        if (!written.isEmpty()) { // a server older than the meter does not serve it
            panels.add(new Panel("written.png", "Bytes written per second by connection type (before framing)",
                    "MiB/s", written));
        }
        panels.add(new Panel("received.png", "Messages received per second (publishes, not /meta)", "messages/s",
                List.of(rate(scrapes, "received_per_s", "received", "weft_messages_received_total", Map.of()))));
        panels.add(new Panel("latency.png", "Delivery latency, publish to write (the server's gauges)", "ms", List.of(
                gauge(scrapes, "latency_p50_ms", "p50", "weft_delivery_latency_seconds", Map.of("quantile", "0.5"),
                        1e3),
                gauge(scrapes, "latency_p99_ms", "p99", "weft_delivery_latency_seconds", Map.of("quantile", "0.99"),
                        1e3))));
        panels.add(new Panel("heap.png", "JVM heap (all heap pools)", "MiB", List.of(
                gauge(scrapes, "heap_used_mib", "used", "jvm_memory_used_bytes", Map.of("area", "heap"), 1 / MIB),
                gauge(scrapes, "heap_committed_mib", "committed", "jvm_memory_committed_bytes", Map.of("area", "heap"),
                        1 / MIB))));
        // Shares of the whole machine: a JVM pinned to one core of two reads at most 50% (system_cpu_count says 1).
        panels.add(new Panel("cpu.png", "CPU (recent usage, as the JVM reports it)", "% of all the machine's cores",
                List.of(sinceFirst(gauge(scrapes, "process_cpu_pct", "server process", "process_cpu_usage", Map.of(),
                                100)),
                        sinceFirst(gauge(scrapes, "system_cpu_pct", "whole machine (every process)",
                                "system_cpu_usage", Map.of(), 100)))));
        List<Line> problems = new ArrayList<>();
        problems.add(rate(scrapes, "errors_per_s", "errors", "weft_errors_total", Map.of()));
        problems.add(rate(scrapes, "slow_consumers_per_s", "slow consumers", "weft_slow_consumers_total", Map.of()));
        for (String limit : labelValues(scrapes, "weft_refusals_total", "limit")) {
            problems.add(rate(scrapes, "refusals_per_s_" + limit, "refused: " + limit, "weft_refusals_total",
                    Map.of("limit", limit)));
        }
        problems.removeIf(line -> !nonZero(line));
        if (!problems.isEmpty()) {
            panels.add(new Panel(PROBLEMS, "Errors, slow consumers and refusals (by limit) per second", "per second",
                    problems));
        }
        return panels;
    }

    /**
     * A line per connection type that is not zero in some scrape (every type when none is): the gauge, or with
     * {@code perSecond} the counter's rate.
     */
    private static List<Line> byType(List<Scrape> scrapes, String name, boolean perSecond, String columnPrefix) {
        List<Line> all = new ArrayList<>();
        for (String type : labelValues(scrapes, name, "connection_type")) {
            String column = columnPrefix + type.replaceAll("[^A-Za-z0-9]+", "_");
            String legend = TYPE_LEGENDS.getOrDefault(type, type);
            Line line = perSecond ? rate(scrapes, column, legend, name, Map.of("connection_type", type))
                    : gauge(scrapes, column, legend, name, Map.of("connection_type", type), 1);
            all.add(new Line(column, legend, line.values(), TYPE_COLOURS.get(type), false));
        }
        List<Line> lines = all.stream().filter(MetricsPanels::nonZero).toList();
        return lines.isEmpty() ? all : lines;
    }

    private static Set<String> labelValues(List<Scrape> scrapes, String name, String label) {
        Set<String> values = new TreeSet<>();
        for (Scrape scrape : scrapes) {
            for (Sample sample : scrape.samples()) {
                if (sample.name().equals(name) && sample.labels().containsKey(label)) {
                    values.add(sample.labels().get(label));
                }
            }
        }
        return values;
    }

    static Line gauge(List<Scrape> scrapes, String column, String legend, String name, Map<String, String> match,
            double scale) {
        double[] values = new double[scrapes.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = sum(scrapes.get(i).samples(), name, match) * scale;
        }
        return new Line(column, legend, values);
    }

    /** The counter's increase per second since the previous scrape; a decrease means it restarted from zero. */
    static Line rate(List<Scrape> scrapes, String column, String legend, String name, Map<String, String> match) {
        double[] values = new double[scrapes.size()];
        if (values.length > 0) {
            values[0] = Double.NaN;
        }
        for (int i = 1; i < values.length; i++) {
            double before = sum(scrapes.get(i - 1).samples(), name, match);
            double now = sum(scrapes.get(i).samples(), name, match);
            double seconds = scrapes.get(i).seconds() - scrapes.get(i - 1).seconds();
            values[i] = (now >= before ? now - before : now) / seconds;
        }
        return new Line(column, legend, values);
    }

    private static double[] scaled(double[] values, double scale) {
        double[] result = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            result[i] = values[i] * scale;
        }
        return result;
    }

    /** A "recent usage" gauge read since the previous read: the first read covers no interval, so it is dropped. */
    private static Line sinceFirst(Line line) {
        double[] values = line.values().clone();
        if (values.length > 0) {
            values[0] = Double.NaN;
        }
        return new Line(line.column(), line.legend(), values);
    }

    /** The sum of the samples of {@code name} whose labels include {@code match}; NaN when there is none. */
    static double sum(List<Sample> samples, String name, Map<String, String> match) {
        double total = 0;
        boolean found = false;
        for (Sample sample : samples) {
            if (sample.name().equals(name) && sample.matches(match)) {
                total += sample.value();
                found = true;
            }
        }
        return found ? total : Double.NaN;
    }

    static boolean nonZero(Line line) {
        for (double value : line.values()) {
            if (Double.isFinite(value) && value != 0) {
                return true;
            }
        }
        return false;
    }

    /** The panel's chart: seconds since the first scrape across, plain decimals on both axes, the phases marked. */
    static XYChart chart(Panel panel, List<Scrape> scrapes, List<Mark> phases, int width, int height) {
        XYChart chart = new XYChartBuilder().width(width).height(height).title(panel.title())
                .xAxisTitle("seconds since start").yAxisTitle(panel.yTitle()).build();
        var styler = chart.getStyler();
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setLegendLayout(Styler.LegendLayout.Horizontal);
        styler.setXAxisTickLabelsFormattingFunction(LatencyChart::plainNumber);
        styler.setYAxisTickLabelsFormattingFunction(LatencyChart::plainNumber);
        double lastSecond = scrapes.isEmpty() ? 1 : Math.max(1, scrapes.get(scrapes.size() - 1).seconds());
        styler.setXAxisMin(0.0);
        styler.setXAxisMax(lastSecond);
        double top = 0;
        int next = 0;
        for (Line line : panel.lines()) {
            List<double[]> points = new ArrayList<>();
            double max = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < line.values().length; i++) {
                if (Double.isFinite(line.values()[i])) {
                    points.add(new double[] {scrapes.get(i).seconds(), line.values()[i]});
                    max = Math.max(max, line.values()[i]);
                }
            }
            top = Math.max(top, max);
            // The peak in the legend: a line lying low on the axis (a p50 under a p99) still reads as a figure.
            String legend = line.legend() + ", max " + figure(max);
            if (points.isEmpty()) {
                legend = line.legend() + " (no data)";
                points.add(new double[] {0, 0});
            }
            XYSeries series = chart.addSeries(legend, points.stream().mapToDouble(p -> p[0]).toArray(),
                    points.stream().mapToDouble(p -> p[1]).toArray());
            series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
            series.setMarker(SeriesMarkers.NONE);
            series.setLineColor(line.colour() != null ? line.colour() : OTHER_COLOURS[next++ % OTHER_COLOURS.length]);
            series.setLineStyle(line.dashed() ? DASHED : SOLID);
        }
        styler.setYAxisMin(0.0);
        // Headroom over the highest point, where the phases' labels go.
        styler.setYAxisMax(top > 0 ? top * (phases.isEmpty() ? 1.05 : 1.3) : 1.0);
        for (int i = 0; i < phases.size(); i++) {
            if (phases.get(i).seconds() >= 0 && phases.get(i).seconds() <= lastSecond) {
                chart.addAnnotation(new PhaseMark(phases.get(i), i % 2));
            }
        }
        return chart;
    }

    /** {@code value} in plain decimals, to three significant digits or more: 11,517, 48.9, 0.352; a count as is. */
    static String figure(double value) {
        double size = Math.abs(value);
        String pattern = size >= 100 || value == Math.rint(value) ? "%,.0f" : size >= 10 ? "%.1f"
                : size >= 1 ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, pattern, value);
    }

    /** The images in rows of {@code columns}, on white. */
    static BufferedImage grid(List<BufferedImage> images, int columns) {
        int width = images.stream().mapToInt(BufferedImage::getWidth).max().orElse(1);
        int height = images.stream().mapToInt(BufferedImage::getHeight).max().orElse(1);
        int rows = Math.max(1, (images.size() + columns - 1) / columns);
        BufferedImage grid = new BufferedImage(width * columns, height * rows, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = grid.createGraphics();
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, grid.getWidth(), grid.getHeight());
        for (int i = 0; i < images.size(); i++) {
            g.drawImage(images.get(i), (i % columns) * width, (i / columns) * height, null);
        }
        g.dispose();
        return grid;
    }

    /** A dashed vertical line where a phase starts, its label at the top of the plot (in two alternating rows). */
    private static final class PhaseMark extends Annotation {
        private static final Stroke THIN_DASHED = new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER,
                10f, new float[] {4f, 4f}, 0f);
        private final Mark mark;
        private final int row;

        PhaseMark(Mark mark, int row) {
            super(false);
            this.mark = mark;
            this.row = row;
        }

        @Override
        public void paint(Graphics2D g) {
            int x = getXAxisScreenValue(mark.seconds());
            // XChart's "max" screen y is the plot's bottom edge, its "min" the top.
            int top = Math.min(getYAxisScreenValueForMin(), getYAxisScreenValueForMax());
            int bottom = Math.max(getYAxisScreenValueForMin(), getYAxisScreenValueForMax());
            Stroke stroke = g.getStroke();
            g.setColor(Color.DARK_GRAY);
            g.setStroke(THIN_DASHED);
            g.drawLine(x, top, x, bottom);
            g.setStroke(stroke);
            g.setFont(styler.getLegendFont());
            FontMetrics metrics = g.getFontMetrics();
            int baseline = top + 3 + metrics.getAscent() + row * metrics.getHeight();
            g.drawString(mark.label(), x + 3, baseline);
            bounds = new Rectangle2D.Double(x, top, 3 + metrics.stringWidth(mark.label()), bottom - top);
        }
    }
}
