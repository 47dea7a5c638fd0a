package io.weft.load.bench;

import io.weft.load.LatencyChart;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BubbleChart;
import org.knowm.xchart.BubbleChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code chart}: a PNG from the columns of a bench CSV file, one series per distinct value of the series column(s),
 * points in file order, axes in plain decimals ({@code 1,000}, {@code 0.5}, never {@code 1E3}; see
 * {@link LatencyChart#plainNumber}). Latency by percentile is {@code latency-chart} ({@link LatencyChart}).
 */
@Command(name = "chart", mixinStandardHelpOptions = true, sortOptions = false,
        description = "A PNG chart of one CSV column against another, a series per value of others.")
final class CsvChart implements Callable<Integer> {
    @Option(names = "--csv", required = true, description = "The CSV file (a header line, then rows).")
    Path csv;

    @Option(names = "--out", defaultValue = "chart.png", description = "The PNG to write [${DEFAULT-VALUE}].")
    Path out;

    @Option(names = "--x", required = true, description = "The x column.")
    String x;

    @Option(names = "--y", required = true, description = "The y column.")
    String y;

    @Option(names = "--series", defaultValue = "server", split = "\\+",
            description = "Column(s) whose values name the series, joined with + [${DEFAULT-VALUE}].")
    List<String> seriesBy;

    @Option(names = "--where", split = "\\+", description = "Only rows with COL=VALUE (several joined with +).")
    Map<String, String> where = new LinkedHashMap<>();

    @Option(names = "--bubble", description = "A column drawn as each point's bubble size (a bubble chart).")
    String bubble;

    @Option(names = "--logx", arity = "0..1", description = "A logarithmic x axis.")
    boolean logX;

    @Option(names = "--logy", arity = "0..1", description = "A logarithmic y axis.")
    boolean logY;

    @Option(names = "--title", description = "The title [y vs x].")
    String title;

    @Option(names = "--xlabel", description = "The x axis's title [the x column].")
    String xLabel;

    @Option(names = "--ylabel", description = "The y axis's title [the y column].")
    String yLabel;

    @Override
    public Integer call() throws Exception {
        Map<String, List<double[]>> series = read();
        String heading = title != null ? title : y + " vs " + x;
        String xTitle = xLabel != null ? xLabel : x;
        String yTitle = yLabel != null ? yLabel : y;
        Chart<?, ?> chart;
        if (bubble != null) {
            BubbleChart bubbles = new BubbleChartBuilder().width(900).height(560).title(heading).xAxisTitle(xTitle)
                    .yAxisTitle(yTitle).build();
            double maxBubble = series.values().stream().flatMap(List::stream).mapToDouble(p -> p[2]).max().orElse(1);
            for (Map.Entry<String, List<double[]>> each : series.entrySet()) {
                bubbles.addSeries(each.getKey(), column(each.getValue(), 0), column(each.getValue(), 1),
                        each.getValue().stream().mapToDouble(p -> 8 + 40 * Math.sqrt(p[2] / maxBubble)).toArray());
            }
            bubbles.getStyler().setYAxisLogarithmic(logY);
            plainLabels(bubbles.getStyler());
            chart = bubbles;
        } else {
            XYChart lines = new XYChartBuilder().width(900).height(560).title(heading).xAxisTitle(xTitle)
                    .yAxisTitle(yTitle).build();
            for (Map.Entry<String, List<double[]>> each : series.entrySet()) {
                lines.addSeries(each.getKey(), column(each.getValue(), 0), column(each.getValue(), 1))
                        .setMarker(SeriesMarkers.CIRCLE);
            }
            lines.getStyler().setXAxisLogarithmic(logX);
            lines.getStyler().setYAxisLogarithmic(logY);
            plainLabels(lines.getStyler());
            chart = lines;
        }
        if (out.toAbsolutePath().getParent() != null) {
            Files.createDirectories(out.toAbsolutePath().getParent());
        }
        ImageIO.write(BitmapEncoder.getBufferedImage(chart), "png", out.toFile());
        System.err.println("wrote " + out);
        return 0;
    }

    /** Series name to points {x, y, bubble}: the rows kept by {@code --where} whose x and y are numbers. */
    Map<String, List<double[]>> read() throws Exception {
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        List<String> header = Arrays.asList(lines.get(0).split(","));
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",", -1);
            boolean keep = true;
            for (Map.Entry<String, String> clause : where.entrySet()) {
                keep &= clause.getValue().equals(cell(cells, header, clause.getKey()));
            }
            if (!keep) {
                continue;
            }
            List<String> names = new ArrayList<>();
            for (String column : seriesBy) {
                names.add(cell(cells, header, column));
            }
            double[] point = {Double.parseDouble(cell(cells, header, x)), Double.parseDouble(cell(cells, header, y)),
                bubble == null ? 0 : Double.parseDouble(cell(cells, header, bubble))};
            if (Double.isFinite(point[0]) && Double.isFinite(point[1])) {
                series.computeIfAbsent(String.join(" ", names).trim(), k -> new ArrayList<>()).add(point);
            }
        }
        return series;
    }

    private static void plainLabels(AxesChartStyler styler) {
        styler.setXAxisTickLabelsFormattingFunction(LatencyChart::plainNumber);
        styler.setYAxisTickLabelsFormattingFunction(LatencyChart::plainNumber);
    }

    private static String cell(String[] cells, List<String> header, String column) {
        int i = header.indexOf(column);
        if (i < 0) {
            throw new IllegalArgumentException("no column " + column + " in " + header);
        }
        return cells[i];
    }

    private static double[] column(List<double[]> points, int i) {
        return points.stream().mapToDouble(p -> p[i]).toArray();
    }
}
