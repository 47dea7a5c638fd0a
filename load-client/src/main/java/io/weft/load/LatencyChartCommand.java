package io.weft.load;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code latency-chart}: runs' latency by percentile overlaid, from the HdrHistogram logs the load tool and the ladder
 * leave: {@code LatencyChart}'s own command line and {@code Bench latency-chart}. A file that cannot be read is
 * named in one line (exit code 2), not a stack trace.
 */
@Command(name = "latency-chart", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Latency by percentile of several runs overlaid, from HdrHistogram logs.")
public final class LatencyChartCommand implements Callable<Integer> {
    @Option(names = "--out", defaultValue = "latency.png", description = "The PNG to write [${DEFAULT-VALUE}].")
    Path out;

    @Option(names = "--title", defaultValue = "Latency by percentile", description = "The title [${DEFAULT-VALUE}].")
    String title;

    @Parameters(arity = "1..*", paramLabel = "FILE.hlog[=legend]",
            description = "The runs; the legend defaults to the file's name.")
    List<String> runs;

    @Override
    public Integer call() {
        try {
            LatencyChart.overlay(out, title, runs);
        } catch (IOException | RuntimeException x) {
            System.err.println("latency-chart: " + (x instanceof NoSuchFileException ? "no such file: " : "")
                    + x.getMessage());
            return 2;
        }
        System.err.println("wrote " + out);
        return 0;
    }
}
