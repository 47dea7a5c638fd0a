package io.weft.load.bench;

import io.weft.load.LatencyChart;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code latency-chart}: runs' latency by percentile overlaid, from the histograms the ladder leaves. */
@Command(name = "latency-chart", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Latency by percentile of several runs overlaid, from HdrHistogram logs.")
final class LatencyChartCommand implements Callable<Integer> {
    @Option(names = "--out", defaultValue = "latency.png", description = "The PNG to write [${DEFAULT-VALUE}].")
    Path out;

    @Option(names = "--title", defaultValue = "Latency by percentile", description = "The title [${DEFAULT-VALUE}].")
    String title;

    @Parameters(arity = "1..*", paramLabel = "FILE.hlog[=legend]",
            description = "The runs; the legend defaults to the file's name.")
    List<String> runs;

    @Override
    public Integer call() throws Exception {
        LatencyChart.overlay(out, title, runs);
        System.err.println("wrote " + out);
        return 0;
    }
}
