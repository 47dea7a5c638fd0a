package io.weft.load;

import java.awt.Graphics2D;
import java.awt.Shape;
import java.awt.font.TextLayout;
import java.awt.geom.AffineTransform;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.imageio.ImageIO;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.HistogramLogWriter;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Annotation;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import picocli.CommandLine;

/**
 * Latency drawn the way latency engineers read it, as HdrHistogram's plots do: the percentile distribution. The x
 * axis is the percentile on a log scale of {@code 1/(1-p)}, ticks labelled 50%, 90%, 99%, 99.9%, ...; the y axis is
 * the latency in milliseconds at that percentile, on a linear scale with plain decimal labels. One line per run, so
 * runs of several transports or servers overlay on one chart. The points are the histogram's own: at the percentile
 * levels of its percentile iteration (five steps per halving of the distance to 100%, up to the last level its sample
 * count resolves), the value {@link Histogram#getValueAtPercentile} gives, as the printed reports use.
 *
 * <p>The same chart serves the load tool (a chart per run and per session) and the bench driver (servers and
 * transports side by side). Histograms travel between processes as HdrHistogram log files ({@code .hlog}, see
 * {@link #writeLog} and {@link #readLog}); {@link #main} overlays such files. Drawing is headless and stateless;
 * every method is safe from any thread.
 */
public final class LatencyChart {
    /** Percentile iteration steps per halving of the distance to 100%, as HdrHistogram's own output uses. */
    static final int TICKS_PER_HALF_DISTANCE = 5;
    private static final String UNIT_COMMENT = "#[Unit: ";

    private LatencyChart() {
    }

    /**
     * One run's line: the latency (ms) at each percentile (0 to 100, exclusive of 100).
     *
     * @param name the legend's text
     * @param percentiles the x values, as percentiles (50.0 for the median), ascending
     * @param millis the latency at each percentile, in milliseconds
     * @param maxMillis the largest latency recorded (100% has no place on a 1/(1-p) axis; the legend shows it)
     */
    public record Series(String name, double[] percentiles, double[] millis, double maxMillis) {
    }

    /**
     * The line of {@code histogram}, whose values are in units of which {@code unitsPerMilli} make a millisecond
     * (1,000,000 for nanoseconds, 1,000 for microseconds). The legend reads {@code name: p50 .., p99 .., max .. ms}.
     */
    public static Series series(String name, Histogram histogram, double unitsPerMilli) {
        List<double[]> points = new ArrayList<>();
        if (histogram.getTotalCount() > 0) {
            for (HistogramIterationValue value : histogram.percentiles(TICKS_PER_HALF_DISTANCE)) {
                double percentile = value.getPercentileLevelIteratedTo();
                if (percentile < 100.0) {
                    // The value as getValueAtPercentile reports it, so the chart agrees with the printed report.
                    points.add(new double[] {percentile, histogram.getValueAtPercentile(percentile) / unitsPerMilli});
                }
            }
        }
        double max = histogram.getTotalCount() == 0 ? 0 : histogram.getMaxValue() / unitsPerMilli;
        String legend = histogram.getTotalCount() == 0 ? name + ": no samples"
                : String.format(Locale.ROOT, "%s: p50 %s, p99 %s, max %s ms", name,
                        ms(histogram.getValueAtPercentile(50) / unitsPerMilli),
                        ms(histogram.getValueAtPercentile(99) / unitsPerMilli), ms(max));
        return new Series(legend, points.stream().mapToDouble(p -> p[0]).toArray(),
                points.stream().mapToDouble(p -> p[1]).toArray(), max);
    }

    /**
     * The chart of {@code lines}, overlaid, {@code width} x {@code height} pixels. The latency axis is linear from
     * zero, where the tail's rise reads directly in milliseconds, unless the lines' medians differ more than tenfold:
     * then it is logarithmic, or the lower line would lie flat on zero.
     */
    public static XYChart chart(String title, List<Series> lines, int width, int height) {
        boolean logY = logScaleReadsBetter(lines);
        XYChart chart = new XYChartBuilder().width(width).height(height).title(title).xAxisTitle("percentile")
                .yAxisTitle(logY ? "latency (ms, log scale)" : "latency (ms)").build();
        var styler = chart.getStyler();
        styler.setLegendPosition(Styler.LegendPosition.OutsideS); // below the plot: never over a line
        styler.setLegendVisible(true);
        styler.setXAxisLogarithmic(true);
        styler.setXAxisTickLabelsFormattingFunction(LatencyChart::percentileLabel);
        styler.setYAxisLogarithmic(logY);
        styler.setYAxisTickLabelsFormattingFunction(LatencyChart::plainNumber);
        if (!logY) {
            styler.setYAxisMin(0.0);
        }
        styler.setMarkerSize(4);
        // 1/(1-p): 1 is 0%, 10 is 90%, 100 is 99%; the axis ends at the decade past the deepest resolved percentile.
        double deepest = 100;
        for (Series line : lines) {
            for (double percentile : line.percentiles()) {
                deepest = Math.max(deepest, x(percentile));
            }
        }
        styler.setXAxisMin(1.0);
        styler.setXAxisMax(Math.pow(10, Math.ceil(Math.log10(deepest) - 1e-9)));
        chart.addAnnotation(new MedianTickLabel());
        Set<String> names = new HashSet<>();
        for (Series line : lines) {
            List<double[]> points = new ArrayList<>();
            for (int i = 0; i < line.percentiles().length; i++) {
                if (!logY || line.millis()[i] > 0) { // a log axis has no zero; such points are below its range
                    points.add(new double[] {x(line.percentiles()[i]), line.millis()[i]});
                }
            }
            if (points.isEmpty()) {
                points.add(new double[] {1, logY ? Double.MIN_NORMAL : 0}); // no samples: the legend says so
            }
            String name = line.name();
            for (int copy = 2; !names.add(name); copy++) {
                name = line.name() + " (" + copy + ")"; // XChart refuses two series of one name
            }
            XYSeries series = chart.addSeries(name, points.stream().mapToDouble(p -> p[0]).toArray(),
                    points.stream().mapToDouble(p -> p[1]).toArray());
            series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
            series.setMarker(SeriesMarkers.CIRCLE);
        }
        return chart;
    }

    /** Whether the lines' medians differ more than tenfold. */
    static boolean logScaleReadsBetter(List<Series> lines) {
        double low = Double.MAX_VALUE;
        double high = 0;
        for (Series line : lines) {
            for (int i = 0; i < line.percentiles().length; i++) {
                if (line.percentiles()[i] >= 50) {
                    low = Math.min(low, line.millis()[i]);
                    high = Math.max(high, line.millis()[i]);
                    break;
                }
            }
        }
        return high > 0 && (low <= 0 || high / low > 10);
    }

    /** Draws {@link #chart} (1000 x 560) into {@code png}, creating its folder. */
    public static void write(Path png, String title, List<Series> lines) throws IOException {
        if (png.toAbsolutePath().getParent() != null) {
            Files.createDirectories(png.toAbsolutePath().getParent());
        }
        ImageIO.write(BitmapEncoder.getBufferedImage(chart(title, lines, 1000, 560)), "png", png.toFile());
    }

    /**
     * Writes {@code histogram} to an HdrHistogram log file (one interval; HdrHistogram's own tools read it too), with
     * its unit ({@code "ns"} or {@code "us"}) in a comment line for {@link #readLog}.
     */
    public static void writeLog(Path file, Histogram histogram, String unit) throws IOException {
        try (PrintStream out = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8)) {
            HistogramLogWriter writer = new HistogramLogWriter(out);
            writer.outputComment("[Unit: " + unit + "]");
            writer.outputLogFormatVersion();
            writer.outputLegend();
            writer.outputIntervalHistogram(histogram);
        }
    }

    /** Every interval of an HdrHistogram log file, added up, as the line {@code name}. */
    public static Series readLog(Path file, String name) throws IOException {
        double unitsPerMilli = 1_000; // microseconds unless the file says otherwise
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.startsWith(UNIT_COMMENT)) {
                unitsPerMilli = line.startsWith(UNIT_COMMENT + "ns") ? 1_000_000 : 1_000;
            }
        }
        Histogram total = new Histogram(3);
        HistogramLogReader reader = new HistogramLogReader(file.toFile());
        for (var interval = reader.nextIntervalHistogram(); interval != null; interval = reader.nextIntervalHistogram()) {
            total.add((Histogram) interval);
        }
        return series(name, total, unitsPerMilli);
    }

    /**
     * Overlays HdrHistogram log files: {@code --out=F.png [--title=T] FILE[=legend] ...} ({@link LatencyChartCommand});
     * the legend defaults to the file's name without {@code .hlog}.
     */
    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(new CommandLine(new LatencyChartCommand()).execute(args));
    }

    /** Draws the runs {@code FILE.hlog[=legend]} overlaid into {@code png}; the legend defaults to the file's name. */
    public static void overlay(Path png, String title, List<String> runs) throws IOException {
        List<Series> lines = new ArrayList<>();
        for (String run : runs) {
            int eq = run.indexOf('=');
            Path file = Path.of(eq < 0 ? run : run.substring(0, eq));
            String name = eq < 0 ? file.getFileName().toString().replaceFirst("\\.hlog$", "") : run.substring(eq + 1);
            lines.add(readLog(file, name));
        }
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("usage: LatencyChart --out=F.png [--title=T] FILE.hlog[=legend] ...");
        }
        write(png, title, lines);
    }

    /**
     * The "50%" under the x axis. XChart labels a log axis at its decades only (0%, 90%, 99%, ...); the median sits at
     * 2, a minor tick, so its label is drawn here, in the tick labels' font, row and colour.
     */
    private static final class MedianTickLabel extends Annotation {
        MedianTickLabel() {
            super(false);
        }

        @Override
        public void paint(Graphics2D g) {
            AxesChartStyler axes = (AxesChartStyler) styler;
            // Drawn as XChart draws its tick labels: the text's outline, filled; its top in their row (XChart 4.0.3
            // puts them two paddings and a pixel below the tick marks: measured on its PNGs).
            TextLayout layout = new TextLayout(percentileLabel(2), axes.getAxisTickLabelsFont(),
                    g.getFontRenderContext());
            Rectangle2D text = layout.getBounds();
            double x = getXAxisScreenValue(2) - text.getWidth() / 2;
            double top = getYAxisScreenValueForMax() + axes.getAxisTickMarkLength()
                    + 2 * axes.getAxisTickPadding() + 1;
            Shape outline = layout.getOutline(AffineTransform.getTranslateInstance(x - text.getX(), top - text.getY()));
            g.setColor(axes.getXAxisTickLabelsColor());
            g.fill(outline);
            bounds = outline.getBounds2D();
        }
    }

    /** Where percentile {@code p} (0 to 100) sits on the x axis. */
    static double x(double percentile) {
        return 100.0 / (100.0 - percentile);
    }

    /** The x axis's tick labels: 50% at 2, and at each decade 10^k the percentile 100 (1 - 10^-k). */
    static String percentileLabel(double x) {
        if (Math.abs(x - 2) < 1e-9) {
            return "50%";
        }
        double decade = Math.log10(x);
        if (Math.abs(decade - Math.rint(decade)) > 1e-9) {
            return "";
        }
        long nines = Math.round(decade);
        if (nines <= 0) {
            return "0%";
        }
        // 90%, 99%, 99.9%, ...: two nines before the point, the rest after it.
        return nines <= 2 ? "9".repeat((int) nines) + (nines == 1 ? "0%" : "%")
                : "99." + "9".repeat((int) nines - 2) + "%";
    }

    /**
     * Tick labels in plain decimals with thousands separators ({@code 11,444}, {@code 0.25}), never in scientific
     * notation; for any XChart axis ({@code styler.setYAxisTickLabelsFormattingFunction(LatencyChart::plainNumber)}).
     */
    public static String plainNumber(double value) {
        return new DecimalFormat("#,##0.###", DecimalFormatSymbols.getInstance(Locale.ROOT)).format(value);
    }

    private static String ms(double millis) {
        return millis >= 100 ? String.format(Locale.ROOT, "%,.0f", millis)
                : millis >= 10 ? String.format(Locale.ROOT, "%.1f", millis)
                : String.format(Locale.ROOT, "%.2f", millis);
    }
}
