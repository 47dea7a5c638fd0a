package io.weft.load.bench;

import io.weft.load.LatencyChartCommand;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The benchmark harness's commands (the bench module, on the load tool's classes), which the {@code bench/*.sh}
 * scripts run against Weft's load server, CometD and Faye alike (docs/benchmarks): {@code ladder} (the chat load up to
 * the knee), {@code idle} (held idle clients), {@code emit} (server-side emitters), {@code relay} (device relay), the
 * fault runs {@code restart}, {@code storm}, {@code slow} and {@code proxy} (docs/benchmarks/faults.md), {@code loss}
 * (failover through HAProxy, with recovery or without: docs/benchmarks/recovery-failover.md), and the
 * charts drawn from their CSV files and histograms, {@code chart} and {@code latency-chart}.
 *
 * <pre>java -cp ... io.weft.load.bench.Bench ladder --urls=http://127.0.0.1:8080/cometd --rates=1000,2000 ...</pre>
 */
@Command(name = "Bench", mixinStandardHelpOptions = true,
        subcommands = {LadderCommand.class, IdleCommand.class, EmitCommand.class, RelayCommand.class,
            RestartCommand.class, StormCommand.class, SlowReadersCommand.class, ProxyCommand.class, LossCommand.class,
            CsvChart.class,
            LatencyChartCommand.class},
        description = "The benchmark harness's commands (see docs/benchmarks).")
public final class Bench implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(new CommandLine(new Bench()).execute(args));
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(System.err);
        return 2;
    }
}
