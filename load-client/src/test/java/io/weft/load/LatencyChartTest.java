package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import picocli.CommandLine;

class LatencyChartTest {
    /** 1..1000 ms, in nanoseconds. */
    private static Histogram uniform() {
        Histogram nanos = new Histogram(3);
        for (long ms = 1; ms <= 1_000; ms++) {
            nanos.recordValue(ms * 1_000_000);
        }
        return nanos;
    }

    /** 9,990 samples at 2 ms and 10 at 50 ms, in microseconds: a flat line with a tail past 99.9%. */
    private static Histogram tailed() {
        Histogram micros = new Histogram(3);
        micros.recordValueWithCount(2_000, 9_990);
        micros.recordValueWithCount(50_000, 10);
        return micros;
    }

    @Test
    void eachPointIsTheHistogramsLatencyAtItsPercentileInMilliseconds() {
        Histogram nanos = uniform();
        LatencyChart.Series series = LatencyChart.series("uniform", nanos, 1_000_000);

        assertTrue(series.percentiles().length > 10, "several points per decade");
        assertEquals(0.0, series.percentiles()[0]);
        assertTrue(series.percentiles()[series.percentiles().length - 1] >= 99.9, "down to 99.9% of 1,000 samples");
        assertTrue(series.percentiles()[series.percentiles().length - 1] < 100, "100% has no place on 1/(1-p)");
        for (int i = 0; i < series.percentiles().length; i++) {
            assertEquals(nanos.getValueAtPercentile(series.percentiles()[i]) / 1e6, series.millis()[i], 1e-9);
        }
        assertEquals(nanos.getMaxValue() / 1e6, series.maxMillis(), 1e-9);
        assertTrue(series.name().startsWith("uniform: p50 50"), series.name());
    }

    @Test
    void twoRunsOverlaidPlotPercentilesOnOneOverOneMinusP(@TempDir Path folder) throws Exception {
        Histogram first = uniform();
        Histogram second = tailed();
        List<LatencyChart.Series> lines = List.of(LatencyChart.series("uniform", first, 1_000_000),
                LatencyChart.series("tailed", second, 1_000));

        XYChart chart = LatencyChart.chart("two runs", lines, 1000, 560);

        assertEquals(2, chart.getSeriesCollection().size());
        assertTrue(chart.getStyler().isXAxisLogarithmic());
        assertTrue(chart.getStyler().isYAxisLogarithmic(), "medians of 2 and 500 ms: log latency axis");
        for (int s = 0; s < 2; s++) {
            LatencyChart.Series line = lines.get(s);
            Histogram histogram = s == 0 ? first : second;
            double unitsPerMilli = s == 0 ? 1e6 : 1e3;
            XYSeries plotted = chart.getSeries(line.name());
            double[] x = plotted.getXData();
            double[] y = plotted.getYData();
            assertEquals(line.percentiles().length, x.length);
            for (int i = 0; i < x.length; i++) {
                double percentile = line.percentiles()[i];
                assertEquals(100 / (100 - percentile), x[i], 1e-9);
                assertEquals(histogram.getValueAtPercentile(percentile) / unitsPerMilli, y[i], 1e-9);
            }
        }
        XYSeries tail = chart.getSeries(lines.get(1).name());
        assertEquals(2.0, tail.getYData()[0], 0.01);
        assertEquals(50.0, tail.getYData()[tail.getYData().length - 1], 0.05, "the tail is drawn, not hidden");

        Path png = folder.resolve("overlay.png");
        LatencyChart.write(png, "two runs", lines);
        assertTrue(Files.size(png) > 1_000, "a PNG was written");
        byte[] magic = new byte[] {(byte) 0x89, 'P', 'N', 'G'};
        byte[] head = new byte[4];
        System.arraycopy(Files.readAllBytes(png), 0, head, 0, 4);
        assertArrayEquals(magic, head);
    }

    @Test
    void oneLineGetsALinearLatencyAxisFromZero() {
        XYChart chart = LatencyChart.chart("one run", List.of(LatencyChart.series("tailed", tailed(), 1_000)), 800, 400);
        assertTrue(!chart.getStyler().isYAxisLogarithmic());
        assertEquals(0.0, chart.getStyler().getYAxisMin());
        assertEquals("11,444", LatencyChart.plainNumber(11_444));
        assertEquals("0.25", LatencyChart.plainNumber(0.25));
    }

    @Test
    void percentileTicksReadAsPercentiles() {
        assertEquals("0%", LatencyChart.percentileLabel(1));
        assertEquals("50%", LatencyChart.percentileLabel(2));
        assertEquals("90%", LatencyChart.percentileLabel(10));
        assertEquals("99%", LatencyChart.percentileLabel(100));
        assertEquals("99.9%", LatencyChart.percentileLabel(1_000));
        assertEquals("99.99%", LatencyChart.percentileLabel(10_000));
        assertEquals("99.999%", LatencyChart.percentileLabel(100_000));
        assertEquals("", LatencyChart.percentileLabel(3));
        assertEquals(1_000, LatencyChart.x(99.9), 1e-6);
    }

    @Test
    void aHistogramLogReadsBackAsTheSameLine(@TempDir Path folder) throws Exception {
        Histogram nanos = uniform();
        Path log = folder.resolve("run.hlog");
        LatencyChart.writeLog(log, nanos, "ns");

        LatencyChart.Series read = LatencyChart.readLog(log, "uniform");
        LatencyChart.Series direct = LatencyChart.series("uniform", nanos, 1_000_000);

        assertEquals(direct.name(), read.name());
        assertArrayEquals(direct.percentiles(), read.percentiles());
        assertArrayEquals(direct.millis(), read.millis());
    }

    @Test
    void aLogThatCannotBeReadIsNamedInOneLineNotAStackTrace(@TempDir Path dir) {
        Path png = dir.resolve("out.png");
        int exit = new CommandLine(new LatencyChartCommand()).execute("--out=" + png, dir.resolve("missing.hlog") + "=a");
        assertEquals(2, exit);
        assertTrue(Files.notExists(png));
        assertEquals(0, new CommandLine(new LatencyChartCommand()).execute("--help"), "--help is help, not a file");
    }
}
