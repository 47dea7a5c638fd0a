package io.weft.load.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code loss} (issue 27): one {@link LossRun} (HAProxy, two Weft nodes and Redis of its own, subscribers of the
 * official CometD JavaScript client and of weft.js in Node, a fault), its {@code RESULT} line printed and its row
 * appended to {@code --csv}. Run from the repository's root or with the paths given. bench/recovery.sh runs the table
 * of them.
 */
@Command(name = "loss", mixinStandardHelpOptions = true, sortOptions = false,
        description = "What subscribers lose when a node dies or is restarted, with recovery or without.")
final class LossCommand implements Callable<Integer> {
    @Option(names = "--transport", defaultValue = "websocket",
            description = "The subscribers' transport: websocket or long-polling [${DEFAULT-VALUE}].")
    String transport;

    @Option(names = "--fault", defaultValue = "kill",
            description = "none, kill (kill -9 node a) or rolling (SIGTERM and restart a, then b) [${DEFAULT-VALUE}].")
    String fault;

    @Option(names = "--recovery", defaultValue = "false", arity = "1",
            description = "History on the channels, weft-recovery.js on every official client and weft.js's own "
                    + "recovery on every weft.js client [${DEFAULT-VALUE}].")
    boolean recovery;

    @Option(names = "--clients", defaultValue = "mixed",
            description = "The subscribers' client: cometd (the official one), weft (weft.js) or mixed (half of each, "
                    + "both on every channel) [${DEFAULT-VALUE}].")
    String clients;

    @Option(names = "--subscribers", defaultValue = "500", description = "Subscribers [${DEFAULT-VALUE}].")
    int subscribers;

    @Option(names = "--channels", defaultValue = "20", description = "Channels [${DEFAULT-VALUE}].")
    int channels;

    @Option(names = "--rate", defaultValue = "200",
            description = "Messages a second, all channels together [${DEFAULT-VALUE}].")
    int rate;

    @Option(names = "--fault-at-s", defaultValue = "10",
            description = "Seconds of publishing before the fault [${DEFAULT-VALUE}].")
    double faultAt;

    @Option(names = "--after-s", defaultValue = "20",
            description = "Seconds of publishing after the fault is over [${DEFAULT-VALUE}].")
    double after;

    @Option(names = "--drain-s", defaultValue = "10",
            description = "How long a node drains on SIGTERM (LoadServer --drain) [${DEFAULT-VALUE}].")
    double drain;

    @Option(names = "--npm-prefix", defaultValue = "bench/target/npm-loss",
            description = "Where the official client is installed with npm (once) [${DEFAULT-VALUE}].")
    Path npmPrefix;

    @Option(names = "--haproxy-cfg", defaultValue = "cluster-redis/haproxy.cfg",
            description = "The documented HAProxy configuration [${DEFAULT-VALUE}].")
    Path haproxyConfig;

    @Option(names = "--recovery-js", defaultValue = "examples/src/main/resources/static/weft-recovery.js",
            description = "The recovery extension for the official client, weft.js beside it [${DEFAULT-VALUE}].")
    Path recoveryScript;

    @Option(names = "--dir", defaultValue = "bench/target/loss",
            description = "Where each run's logs go (a folder per run) [${DEFAULT-VALUE}].")
    Path dir;

    @Option(names = "--csv", description = "A CSV file to append the run's row to (its header first, if new).")
    Path csv;

    @Option(names = "--label", defaultValue = "",
            description = "Text for the row's last column, label (e.g. the commit measured).")
    String label;

    @Override
    public Integer call() throws Exception {
        LossRun.Fault chosen = LossRun.Fault.parse(fault);
        LossRun.Clients kinds = LossRun.Clients.parse(clients);
        String header = LossResult.CSV_HEADER + ",label";
        boolean newCsv = csv != null && (!Files.exists(csv) || Files.size(csv) == 0);
        if (csv != null && !newCsv && !Files.readAllLines(csv, StandardCharsets.UTF_8).get(0).equals(header)) {
            // appended rows would not line up with its header (KEEP_CSV=1 over a table of an older harness)
            throw new IllegalArgumentException(csv + " has other columns than a run writes: start a new file");
        }
        // Stopped from outside (a script's time limit): what the run started does not outlive it.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessHandle.current().descendants()
                .forEach(ProcessHandle::destroyForcibly), "loss-cleanup"));
        Path runDir = dir.resolve(transport + "-" + chosen.name().toLowerCase(Locale.ROOT) + "-"
                + (recovery ? "recovery" : "plain") + "-" + kinds.label);
        LossResult result = LossRun.run(new LossRun.Settings(transport, chosen, recovery, kinds, subscribers, channels,
                rate, seconds(faultAt), seconds(after), seconds(drain), NodeClients.install(npmPrefix.toAbsolutePath()),
                haproxyConfig, recoveryScript, runDir));
        System.out.println(result.resultLine());
        result.faults().forEach(line -> System.out.println("  " + line));
        if (csv != null) {
            if (newCsv) {
                Files.writeString(csv, header + "\n", StandardCharsets.UTF_8);
            }
            Files.writeString(csv, result.csvRow() + "," + label.replace(',', ' ') + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.APPEND);
        }
        return 0;
    }

    private static Duration seconds(double value) {
        return Duration.ofMillis(Math.round(value * 1000));
    }
}
