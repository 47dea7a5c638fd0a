package io.weft.load.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.client.BayeuxClient;
import io.weft.load.CsvFile;
import io.weft.load.Measurement;
import io.weft.load.RelayService;
import io.weft.load.ServerProbe;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code relay} (experiment 4 of docs/benchmarks, after Cometa): N devices connected and idle but for the requests
 * they answer; requesters send {@code --rate} requests per second in all, each to a random device, through the load
 * server ({@link RelayService}). After a warm-up, a measured window: the round trips as the requesters saw them (from
 * each request's intended send time) and as the server saw them (from its run report), one CSV row.
 */
@Command(name = "relay", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Requests to random devices through the server and back; a CSV row of round trips.")
final class RelayCommand implements Callable<Integer> {
    static final String HEADER = "server,transport,devices,rate,sent,answered,avg_ms,min_ms,max_ms,stddev_ms,p99_ms,"
            + "server_avg_ms,server_min_ms,server_max_ms,server_stddev_ms,server_p99_ms,sent_per_s,"
            + "server_heap_mb,server_rss_mb,load_avg";

    @Mixin
    ClientOptions clients;

    @Option(names = "--devices", defaultValue = "1000", description = "Devices [${DEFAULT-VALUE}].")
    int devices;

    @Option(names = "--requesters", defaultValue = "20", description = "Requesters [${DEFAULT-VALUE}].")
    int requesters;

    @Option(names = "--rate", defaultValue = "1000", description = "Requests per second, in all [${DEFAULT-VALUE}].")
    double rate;

    @Option(names = "--warmup-ms", defaultValue = "3000", description = "Warm-up, ms [${DEFAULT-VALUE}].")
    long warmupMs;

    @Option(names = "--measure-ms", defaultValue = "10000", description = "Measured window, ms [${DEFAULT-VALUE}].")
    long measureMs;

    @Option(names = "--csv", defaultValue = "relay.csv",
            description = "CSV file the row is appended to [${DEFAULT-VALUE}].")
    Path csv;

    @Option(names = "--server-report", description = "Where to write the load server's report of the window (JSON).")
    Path serverReport;

    private final Measurement roundTrips = new Measurement(true);

    @Override
    public Integer call() throws Exception {
        try (Cohort cohort = clients.cohort()) {
            int ready = cohort.connect(devices + requesters, this::setUp);
            System.err.printf("relay: %d/%d clients ready%n", ready, devices + requesters);
            if (ready < devices + requesters) {
                throw new IllegalStateException("only " + ready + " of " + (devices + requesters)
                        + " clients connected");
            }
            try (ServerProbe probe = cohort.probe()) {
                Thread.sleep(1000);
                long sent = send(cohort, probe);
                Thread.sleep(2000);
                Map<String, Object> server = probe.stop();
                if (serverReport != null && server != null) {
                    Files.createDirectories(serverReport.toAbsolutePath().getParent());
                    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(serverReport.toFile(), server);
                }
                String row = row(sent, roundTrips.latencies(), server);
                CsvFile.append(csv, HEADER, row);
                System.out.println(row);
                System.out.flush();
            }
        }
        return 0;
    }

    /** Devices (the first {@code devices} clients) answer each request; requesters record each answer's round trip. */
    private void setUp(int index, BayeuxClient client, Promise<Message> done) {
        if (index < devices) {
            client.addListener(RelayService.DEVICE, request -> client.publish(RelayService.REPLY, request.getData(),
                    Promise.noop()));
            client.publish(RelayService.REGISTER, Map.of("device", index), Cohort.successOnly(done));
        } else {
            client.addListener(RelayService.RESPONSE, response -> roundTrips.arrived(
                    ((Number) response.getDataAsMap().get("t")).longValue(), System.nanoTime(), false));
            done.succeed(null);
        }
    }

    /** Sends on schedule through the warm-up and the window; returns how many requests left in the window. */
    private long send(Cohort cohort, ServerProbe probe) {
        SplittableRandom random = new SplittableRandom(7);
        AtomicLong rids = new AtomicLong();
        long period = (long) (1e9 / rate);
        long start = System.nanoTime();
        long windowStart = start + TimeUnit.MILLISECONDS.toNanos(warmupMs);
        long end = windowStart + TimeUnit.MILLISECONDS.toNanos(measureMs);
        long sent = 0;
        boolean measuring = false;
        for (long next = start; next < end; next += period) {
            long remaining;
            while ((remaining = next - System.nanoTime()) > 0) {
                LockSupport.parkNanos(remaining);
            }
            if (!measuring && System.nanoTime() >= windowStart) {
                measuring = true;
                roundTrips.reset();
                probe.start();
            }
            BayeuxClient requester = cohort.get(devices + random.nextInt(requesters));
            requester.publish(RelayService.REQUEST, Map.of("device", random.nextInt(devices),
                    "rid", rids.incrementAndGet(), "t", next), Promise.noop());
            if (measuring) {
                sent++;
            }
        }
        return sent;
    }

    private String row(long sent, Histogram nanos, Map<String, Object> server) {
        Map<?, ?> srt = server == null ? null : (Map<?, ?>) server.get("relayRoundTrip");
        return String.format(Locale.ROOT,
                "weft,%s,%d,%.0f,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.1f,%.1f,%.2f",
                clients.transport.connectionType(), devices, rate, sent, nanos.getTotalCount(), nanos.getMean() / 1e6,
                nanos.getMinValue() / 1e6, nanos.getMaxValue() / 1e6, nanos.getStdDeviation() / 1e6,
                nanos.getValueAtPercentile(99) / 1e6, ServerProbe.number(srt, "avgMs"),
                ServerProbe.number(srt, "minMs"), ServerProbe.number(srt, "maxMs"),
                ServerProbe.number(srt, "stddevMs"), ServerProbe.number(srt, "p99Ms"), sent * 1000.0 / measureMs,
                ServerProbe.number(server, "heapUsedEndBytes") / 1048576.0,
                ServerProbe.number(server, "rssBytes") / 1048576.0,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
}
