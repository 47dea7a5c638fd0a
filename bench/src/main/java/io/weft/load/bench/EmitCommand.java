package io.weft.load.bench;

import io.weft.client.MessageListener;
import io.weft.load.CsvFile;
import io.weft.load.EmitterService;
import io.weft.load.ServerProbe;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code emit} (experiment 3 of docs/benchmarks, server-side emitters): N clients subscribed to {@code /emit}; for
 * each period the load server publishes to them {@code --emits} times ({@link EmitterService}), and a CSV row says how
 * long an emit took to reach everyone, how many it reached, the messages delivered per second of emitting, each
 * arrival's latency (p50, p99), and the server's CPU (over the period, from the load server's run report; also per
 * delivered message), heap and RSS.
 */
@Command(name = "emit", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Server-side emits to N clients, per emit period; a CSV row per period.")
final class EmitCommand implements Callable<Integer> {
    static final String HEADER = "server,transport,clients,period_s,emits,emit_avg_ms,emit_max_ms,reached_pct,"
            + "responses_per_s,server_cpu_pct,server_heap_mb,server_rss_mb,load_avg,delivered_per_s,p50_ms,p99_ms,"
            + "server_cpu_us_per_msg";

    @Mixin
    ClientOptions clients;

    @Option(names = "--clients", defaultValue = "1000", description = "Clients subscribed to /emit [${DEFAULT-VALUE}].")
    int count;

    @Option(names = "--periods-s", split = ",", defaultValue = "1,5,10,30",
            description = "Emit periods, seconds [${DEFAULT-VALUE}].")
    List<Double> periods;

    @Option(names = "--emits", defaultValue = "3", description = "Emits per period [${DEFAULT-VALUE}].")
    int emits;

    @Option(names = "--csv", defaultValue = "emit.csv",
            description = "CSV file rows are appended to [${DEFAULT-VALUE}].")
    Path csv;

    @Override
    public Integer call() throws Exception {
        EmitTally tally = new EmitTally();
        MessageListener listener = message -> {
            long now = EmitterService.epochMicros();
            Map<String, Object> data = message.getDataAsMap();
            tally.arrived(((Number) data.get("seq")).longValue(), ((Number) data.get("t")).longValue(), now);
        };
        try (Cohort cohort = clients.cohort()) {
            int ready = cohort.connect(count, (index, client, done) -> client.subscribe(EmitterService.EMIT, listener,
                    Cohort.successOnly(done)));
            System.err.printf("emit %s: %d/%d clients ready%n", clients.transport, ready, count);
            try (ServerProbe probe = cohort.probe()) {
                Thread.sleep(2000);
                for (double periodSeconds : periods) {
                    long periodMs = (long) (periodSeconds * 1000);
                    tally.clear();
                    long start = System.nanoTime();
                    probe.start();
                    cohort.get(0).publish(EmitterService.CHANNEL, Map.of("periodMs", periodMs, "count", emits));
                    Thread.sleep(periodMs * emits + Math.min(periodMs, 1000) + 2000);
                    Map<String, Object> server = probe.stop();
                    double wallNanos = System.nanoTime() - start;
                    String row = row(ready, periodSeconds, tally.period(ready), server, wallNanos);
                    CsvFile.append(csv, HEADER, row);
                    System.out.println(row);
                    System.out.flush();
                }
            }
        }
        return 0;
    }

    private String row(int ready, double periodSeconds, EmitTally.Period period, Map<String, Object> server,
            double wallNanos) {
        double cpuNanos = ServerProbe.number(server, "cpuNanos");
        double emitting = Math.max(0.001, periodSeconds * emits);
        return String.format(Locale.ROOT, "weft,%s,%d,%s,%d,%.1f,%.1f,%.2f,%.0f,%.1f,%.1f,%.1f,%.2f,%.0f,%.2f,%.2f,%.1f",
                clients.transport.connectionType(), ready,
                BigDecimal.valueOf(periodSeconds).stripTrailingZeros().toPlainString(), period.emits(),
                period.avgMs(), period.maxMs(), period.reachedPercent(), period.responsesPerSecond(),
                100.0 * cpuNanos / wallNanos,
                ServerProbe.number(server, "heapUsedEndBytes") / 1048576.0,
                ServerProbe.number(server, "rssBytes") / 1048576.0,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                period.arrivals() / emitting, period.p50Ms(), period.p99Ms(),
                cpuNanos / 1000.0 / Math.max(1, period.arrivals()));
    }
}
