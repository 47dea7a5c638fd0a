package io.weft.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.weft.client.BayeuxClient;
import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What of the benchmark driver has not moved to the load tool (io.weft.load.bench.Bench) yet: {@code emit},
 * {@code relay}, and the fault runs {@code restart}, {@code storm}, {@code slow} and {@code proxy}, each with
 * {@code --flags}; see docs/benchmarks/README.md and the bench/*.sh scripts that call it.
 */
public final class Driver {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Driver() {
    }

    public static void main(String[] argv) throws Exception {
        if (argv.length == 0) {
            System.err.println("usage: Driver emit|relay|restart|storm|slow|proxy --flag=value ...");
            System.exit(2);
        }
        Args args = new Args(argv, 1);
        switch (argv[0]) {
            case "emit" -> emit(args);
            case "relay" -> relay(args);
            case "restart", "storm", "slow", "proxy" -> Faults.main(argv[0], args);
            default -> throw new IllegalArgumentException("unknown command " + argv[0]);
        }
        System.exit(0);
    }

    /** Experiment 3: N clients on /emit; the server emits every period; per period the time to reach everyone. */
    private static void emit(Args args) throws Exception {
        String transport = args.get("transport", "websocket");
        String[] urls = args.list("urls", "");
        int count = args.getInt("clients", 1000);
        String[] periods = args.list("periods-s", "1,5,10,30");
        int emits = args.getInt("emits", 3);
        Path csv = Path.of(args.get("csv", "emit.csv"));
        String stats = args.get("stats", "http://127.0.0.1:8080/stats");
        Map<Long, long[]> perEmit = new ConcurrentHashMap<>(); // seq -> {t, reached, last arrival}
        LongAdder deliveries = new LongAdder();
        try (Clients clients = new Clients(transport, urls, args.getInt("max-threads", 64))) {
            io.weft.client.MessageListener listener = message -> {
                long now = BenchServer.epochMicros();
                deliveries.increment();
                Map<String, Object> data = message.getDataAsMap();
                long seq = ((Number) data.get("seq")).longValue();
                long t = ((Number) data.get("t")).longValue();
                long[] e = perEmit.computeIfAbsent(seq, s -> new long[] {t, 0, 0});
                synchronized (e) {
                    e[1]++;
                    e[2] = Math.max(e[2], now);
                }
            };
            int ready = clients.connect(count, args.getInt("in-flight", 500), args.getLong("connect-s", 180),
                    (index, client, done) -> client.subscribe("/emit", listener, Clients.successOnly(done)));
            System.err.printf("emit %s: %d/%d clients ready%n", transport, ready, count);
            Thread.sleep(2000);
            for (String periodText : periods) {
                long periodMs = (long) (Double.parseDouble(periodText) * 1000);
                perEmit.clear();
                Map<?, ?> before = fetch(stats);
                long wallStart = System.nanoTime();
                clients.all.get(0).publish("/service/bench/emit", Map.of("periodMs", periodMs, "count", emits));
                Thread.sleep(periodMs * emits + Math.min(periodMs, 1000) + 2000);
                Map<?, ?> after = fetch(stats);
                double wallNanos = System.nanoTime() - wallStart;
                double cpuPct = 100.0 * (num(after, "cpuNanos") - num(before, "cpuNanos")) / wallNanos;
                double sum = 0;
                double max = 0;
                double reached = 0;
                double rateSum = 0;
                for (long[] e : perEmit.values()) {
                    double ms = (e[2] - e[0]) / 1000.0;
                    sum += ms;
                    max = Math.max(max, ms);
                    reached += e[1];
                    rateSum += e[1] / Math.max(0.001, ms / 1000.0);
                }
                int n = Math.max(1, perEmit.size());
                String row = String.format(Locale.ROOT, "weft,%s,%d,%.0f,%d,%.1f,%.1f,%.2f,%.0f,%.1f,%.1f,%.1f,%.2f",
                        transport, ready, periodMs / 1000.0, perEmit.size(), sum / n, max,
                        100.0 * reached / ((double) n * ready), rateSum / n, cpuPct,
                        num(after, "heapUsed") / 1048576.0, num(after, "rss") / 1048576.0, Args.loadAverage());
                Args.appendCsv(csv, "server,transport,clients,period_s,emits,emit_avg_ms,emit_max_ms,reached_pct,"
                        + "responses_per_s,server_cpu_pct,server_heap_mb,server_rss_mb,load_avg", row);
                System.out.println(row);
                System.out.flush();
            }
        }
    }

    /** Experiment 4: N devices, requesters at a fixed rate to random devices, round trips through the server. */
    private static void relay(Args args) throws Exception {
        String[] urls = args.list("urls", "");
        int devices = args.getInt("devices", 1000);
        int requesters = args.getInt("requesters", 20);
        double rate = args.getDouble("rate", 1000);
        long measureMs = args.getLong("measure-ms", 10_000);
        long warmupMs = args.getLong("warmup-ms", 3000);
        Path csv = Path.of(args.get("csv", "relay.csv"));
        String stats = args.get("stats", "http://127.0.0.1:8080/stats");
        Recorder rtt = new Recorder(TimeUnit.SECONDS.toMicros(60), 3);
        LongAdder answered = new LongAdder();
        AtomicLong rids = new AtomicLong();
        try (Clients clients = new Clients(args.get("transport", "websocket"), urls, args.getInt("max-threads", 64))) {
            int ready = clients.connect(devices + requesters, args.getInt("in-flight", 500),
                    args.getLong("connect-s", 300), (index, client, done) -> {
                        if (index < devices) {
                            client.addListener("/device/request", request -> client.publish("/service/relay/reply",
                                    request.getData(), Promise.noop()));
                            client.publish("/service/relay/register", Map.of("device", index),
                                    Clients.successOnly(done));
                        } else {
                            client.addListener("/relay/response", response -> {
                                long t = ((Number) response.getDataAsMap().get("t")).longValue();
                                rtt.recordValue(Math.min(TimeUnit.SECONDS.toMicros(60),
                                        (System.nanoTime() - t) / 1000));
                                answered.increment();
                            });
                            done.succeed(null);
                        }
                    });
            System.err.printf("relay: %d/%d clients ready%n", ready, devices + requesters);
            if (ready < devices + requesters) {
                throw new IllegalStateException("only " + ready + " clients connected");
            }
            Thread.sleep(1000);
            SplittableRandom random = new SplittableRandom(7);
            long period = (long) (1e9 / rate);
            long start = System.nanoTime();
            long windowStart = start + TimeUnit.MILLISECONDS.toNanos(warmupMs);
            long end = windowStart + TimeUnit.MILLISECONDS.toNanos(measureMs);
            long next = start;
            long sent = 0;
            boolean reset = false;
            while (next < end) {
                long now = System.nanoTime();
                if (now < next) {
                    LockSupport.parkNanos(next - now);
                    continue;
                }
                if (!reset && now >= windowStart) {
                    reset = true;
                    rtt.reset();
                    answered.reset();
                    fetch(stats + "?reset");
                }
                BayeuxClient requester = clients.all.get(devices + random.nextInt(requesters));
                requester.publish("/service/relay/request", Map.of("device", random.nextInt(devices),
                        "rid", rids.incrementAndGet(), "t", next), Promise.noop());
                if (reset) {
                    sent++;
                }
                next += period;
            }
            Thread.sleep(2000);
            Map<?, ?> server = fetch(stats);
            Map<?, ?> srt = (Map<?, ?>) server.get("relayRoundTrip");
            Histogram h = rtt.getIntervalHistogram();
            String row = String.format(Locale.ROOT,
                    "weft,websocket,%d,%.0f,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.1f,%.1f,%.2f",
                    devices, rate, sent, h.getTotalCount(), h.getMean() / 1000, h.getMinValue() / 1000.0,
                    h.getMaxValue() / 1000.0, h.getStdDeviation() / 1000, h.getValueAtPercentile(99) / 1000.0,
                    num(srt, "avgMs"), num(srt, "minMs"), num(srt, "maxMs"), num(srt, "stddevMs"),
                    num(srt, "p99Ms"), sent * 1000.0 / measureMs, num(server, "heapUsed") / 1048576.0,
                    num(server, "rss") / 1048576.0, Args.loadAverage());
            Args.appendCsv(csv, "server,transport,devices,rate,sent,answered,avg_ms,min_ms,max_ms,stddev_ms,p99_ms,"
                    + "server_avg_ms,server_min_ms,server_max_ms,server_stddev_ms,server_p99_ms,sent_per_s,"
                    + "server_heap_mb,server_rss_mb,load_avg", row);
            System.out.println(row);
            System.out.flush();
        }
    }

    static Map<?, ?> fetch(String url) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url))
                .timeout(java.time.Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readValue(response.body(), Map.class);
    }

    static double num(Map<?, ?> map, String key) {
        return map != null && map.get(key) instanceof Number n ? n.doubleValue() : Double.NaN;
    }
}
