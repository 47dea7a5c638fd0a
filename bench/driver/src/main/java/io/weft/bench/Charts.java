package io.weft.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import io.weft.load.LatencyChart;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BubbleChart;
import org.knowm.xchart.BubbleChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * PNG charts from the CSV files the experiments write: {@code chart --csv=F --out=F.png --x=COL --y=COL
 * --series=COL[+COL] [--where=COL=V[+COL=V]] [--bubble=COL] [--logx] [--logy] [--title=T]}. One series per distinct
 * value of the series column(s), points in file order; tick labels in plain decimals. Latency distributions are
 * {@code latency-chart} ({@link LatencyChart}), from the histograms {@code chat --hlog-dir=D} writes.
 */
final class Charts {
    private Charts() {
    }

    static void main(Args args) throws Exception {
        List<String> lines = Files.readAllLines(Path.of(args.get("csv", "")), StandardCharsets.UTF_8);
        List<String> header = Arrays.asList(lines.get(0).split(","));
        String x = args.get("x", "");
        String y = args.get("y", "");
        String[] seriesBy = args.get("series", "server").split("\\+");
        String bubble = args.get("bubble", "");
        Map<String, String> where = new LinkedHashMap<>();
        for (String clause : args.get("where", "").split("\\+")) {
            if (clause.contains("=")) {
                where.put(clause.substring(0, clause.indexOf('=')), clause.substring(clause.indexOf('=') + 1));
            }
        }
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",", -1);
            boolean keep = true;
            for (Map.Entry<String, String> clause : where.entrySet()) {
                keep &= clause.getValue().equals(cells[header.indexOf(clause.getKey())]);
            }
            if (!keep) {
                continue;
            }
            StringBuilder name = new StringBuilder();
            for (String column : seriesBy) {
                name.append(name.length() == 0 ? "" : " ").append(column.isEmpty() ? "" : cell(cells, header, column));
            }
            double[] point = {Double.parseDouble(cell(cells, header, x)), Double.parseDouble(cell(cells, header, y)),
                bubble.isEmpty() ? 0 : Double.parseDouble(cell(cells, header, bubble))};
            if (Double.isFinite(point[0]) && Double.isFinite(point[1])) {
                series.computeIfAbsent(name.toString().trim(), k -> new ArrayList<>()).add(point);
            }
        }
        String title = args.get("title", y + " vs " + x);
        String xLabel = args.get("xlabel", x);
        String yLabel = args.get("ylabel", y);
        Path out = Path.of(args.get("out", "chart.png"));
        if (!bubble.isEmpty()) {
            BubbleChart chart = new BubbleChartBuilder().width(900).height(560).title(title).xAxisTitle(xLabel)
                    .yAxisTitle(yLabel).build();
            double maxBubble = series.values().stream().flatMap(List::stream).mapToDouble(p -> p[2]).max().orElse(1);
            for (Map.Entry<String, List<double[]>> s : series.entrySet()) {
                chart.addSeries(s.getKey(), column(s.getValue(), 0), column(s.getValue(), 1),
                        s.getValue().stream().mapToDouble(p -> 8 + 40 * Math.sqrt(p[2] / maxBubble)).toArray());
            }
            chart.getStyler().setYAxisLogarithmic(args.get("logy", "false").equals("true"));
            plainLabels(chart.getStyler());
            BitmapEncoder.saveBitmap(chart, out.toString(), BitmapEncoder.BitmapFormat.PNG);
        } else {
            XYChart chart = new XYChartBuilder().width(900).height(560).title(title).xAxisTitle(xLabel)
                    .yAxisTitle(yLabel).build();
            for (Map.Entry<String, List<double[]>> s : series.entrySet()) {
                chart.addSeries(s.getKey(), column(s.getValue(), 0), column(s.getValue(), 1))
                        .setMarker(SeriesMarkers.CIRCLE);
            }
            chart.getStyler().setXAxisLogarithmic(args.get("logx", "false").equals("true"));
            chart.getStyler().setYAxisLogarithmic(args.get("logy", "false").equals("true"));
            plainLabels(chart.getStyler());
            BitmapEncoder.saveBitmap(chart, out.toString(), BitmapEncoder.BitmapFormat.PNG);
        }
        System.err.println("wrote " + out);
    }

    /** Both axes in plain decimals ({@code 1,000}, {@code 0.5}), never {@code 1E3}, on linear and log axes alike. */
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
