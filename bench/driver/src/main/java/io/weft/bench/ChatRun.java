package io.weft.bench;

import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import io.weft.load.LatencyChart;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The chat-room load (experiments 1, 2 and 5): {@code clients} clients, client {@code i} in room {@code i % rooms};
 * bursts of 10 messages, each to a random room from a random member of that room, at a ladder of offered delivered
 * rates (deliveries per second); per rate: a warm-up, then a measured window (steady state only: latency of the
 * messages sent in the window, from their intended send time, and the deliveries that arrived in it), then a drain.
 * The ladder stops at the knee: deliveries falling behind the offered rate, or p99 past a bound. With
 * {@code --hlog-dir=D}, each step's latency histogram (µs) also goes to
 * {@code D/<server>-<transport>-<clients>c-<rooms>r-<size>B-<offered>[-<label>].hlog}, for {@code latency-chart}.
 */
final class ChatRun {
    /** This driver's own process: its CPU shows whether a step was bound by the load client rather than the server. */
    private static final long SELF = ProcessHandle.current().pid();
    private static final String HEADER = "server,transport,clients,rooms,size,offered_per_s,publish_per_s,"
            + "delivered_per_s,expected,received,lost_pct,p50_ms,p90_ms,p99_ms,max_ms,load_avg,label,server_cpu_pct,"
            + "server_cpu_us_per_msg,client_cpu_pct";

    private final Recorder latency = new Recorder(TimeUnit.SECONDS.toMicros(60), 3);
    private final LongAdder arrivals = new LongAdder();
    private final LongAdder windowReceived = new LongAdder();
    private volatile long windowStart = Long.MAX_VALUE;
    private volatile long windowEnd = Long.MAX_VALUE;

    static void main(Args args) throws Exception {
        new ChatRun().run(args);
    }

    private void run(Args args) throws Exception {
        String server = args.get("server", "weft");
        String transport = args.get("transport", "websocket");
        String[] urls = args.list("urls", "http://127.0.0.1:8080/cometd");
        int clientCount = args.getInt("clients", 1000);
        int rooms = args.getInt("rooms", 100);
        int size = args.getInt("size", 50);
        String[] rates = args.list("rates", "1000,2000,5000,10000,20000");
        long warmupMs = args.getLong("warmup-ms", 3000);
        long measureMs = args.getLong("measure-ms", 8000);
        double kneeP99Ms = args.getDouble("knee-p99-ms", 1000);
        Path csv = Path.of(args.get("csv", "chat.csv"));
        String label = args.get("label", "");
        int burst = args.getInt("burst", 10);
        long serverPid = args.getLong("server-pid", -1);
        String hlogDir = args.get("hlog-dir", "");

        int perRoom = Math.max(1, clientCount / rooms);
        String padding = "x".repeat(Math.max(1, size - 30)); // {"t":1234567890123456,"p":"..."} is about size bytes
        boolean lean = args.get("client", "library").equals("lean");
        if (lean && !transport.equals("websocket")) {
            throw new IllegalArgumentException("--client=lean speaks websocket only");
        }
        try (Clients clients = lean ? null : new Clients(transport, urls, args.getInt("max-threads", 64));
                LeanSockets sockets = lean ? LeanSockets.open(urls, clientCount, rooms, this::arrived) : null) {
            if (!lean) {
                MessageListenerImpl listener = new MessageListenerImpl();
                int ready = clients.connect(clientCount, args.getInt("in-flight", 500), args.getLong("connect-s", 180),
                        (index, client, done) -> client.subscribe("/chat/room" + (index % rooms), listener,
                                Clients.successOnly(done)));
                if (ready < clientCount) {
                    throw new IllegalStateException("only " + ready + " of " + clientCount + " clients connected");
                }
            }
            System.err.printf("%s %s (%s client): %d clients ready%n", server, transport, lean ? "lean" : "library",
                    clientCount);
            Thread.sleep(500);
            SplittableRandom random = new SplittableRandom(42);
            long prewarmMs = args.getLong("prewarm-ms", 10_000);
            for (int step = prewarmMs > 0 ? -1 : 0; step < rates.length; step++) {
                // Step -1 warms the JITs of client and server at the first rate; it is not recorded.
                boolean record = step >= 0;
                String rateText = rates[Math.max(0, step)];
                double offered = Double.parseDouble(rateText);
                long warmup = record ? warmupMs : prewarmMs;
                double publishRate = offered / perRoom;
                long burstPeriodNanos = (long) (1e9 * burst / publishRate);
                long start = System.nanoTime();
                windowStart = start + TimeUnit.MILLISECONDS.toNanos(warmup);
                windowEnd = windowStart + TimeUnit.MILLISECONDS.toNanos(measureMs);
                windowReceived.reset();
                latency.reset();
                long expected = 0;
                long arrivalsAtStart = -1;
                long cpuAtStart = -1;
                long clientCpuAtStart = -1;
                long next = start;
                while (next < windowEnd) {
                    long now = System.nanoTime();
                    if (now < next) {
                        LockSupport.parkNanos(next - now);
                        continue;
                    }
                    if (arrivalsAtStart < 0 && now >= windowStart) {
                        arrivalsAtStart = arrivals.sum();
                        cpuAtStart = ProcessCpu.nanos(serverPid);
                        clientCpuAtStart = ProcessCpu.nanos(SELF);
                    }
                    for (int b = 0; b < burst; b++) {
                        int room = random.nextInt(rooms);
                        int member = room + rooms * random.nextInt(perRoom);
                        int from = Math.min(member, clientCount - 1);
                        if (lean) {
                            sockets.publish(from, "/chat/room" + room, next, padding);
                        } else {
                            Map<String, Object> data = new LinkedHashMap<>(2);
                            data.put("t", next);
                            data.put("p", padding);
                            clients.all.get(from).publish("/chat/room" + room, data, Promise.noop());
                        }
                        if (next >= windowStart) {
                            expected += subscribers(room, rooms, clientCount);
                        }
                    }
                    next += burstPeriodNanos;
                }
                long arrivalsAtEnd = arrivals.sum();
                long cpuAtEnd = ProcessCpu.nanos(serverPid);
                long clientCpuAtEnd = ProcessCpu.nanos(SELF);
                if (arrivalsAtStart < 0) {
                    arrivalsAtStart = arrivalsAtEnd;
                }
                long windowNanos = System.nanoTime() - windowStart;
                double delivered = (arrivalsAtEnd - arrivalsAtStart) * 1e9 / windowNanos;
                double cpuPct = cpuAtStart < 0 || cpuAtEnd < 0 ? Double.NaN
                        : 100.0 * (cpuAtEnd - cpuAtStart) / windowNanos;
                double cpuPerMsg = cpuAtStart < 0 || cpuAtEnd < 0 || arrivalsAtEnd == arrivalsAtStart ? Double.NaN
                        : (cpuAtEnd - cpuAtStart) / 1000.0 / (arrivalsAtEnd - arrivalsAtStart);
                double clientCpuPct = clientCpuAtStart < 0 || clientCpuAtEnd < 0 ? Double.NaN
                        : 100.0 * (clientCpuAtEnd - clientCpuAtStart) / windowNanos;
                // Drain: give late messages of the window up to 5 s to arrive (they count as received, with their
                // full latency), then a short pause before the next rate.
                long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (windowReceived.sum() < expected && System.nanoTime() < drainUntil) {
                    Thread.sleep(50);
                }
                windowEnd = Long.MIN_VALUE; // nothing more counts
                Histogram h = latency.getIntervalHistogram();
                long received = windowReceived.sum();
                double lostPct = expected == 0 ? 0 : 100.0 * Math.max(0, expected - received) / expected;
                double p99 = h.getValueAtPercentile(99) / 1000.0;
                String row = String.format(Locale.ROOT, "%s,%s,%d,%d,%d,%.0f,%.1f,%.0f,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%s,%.1f,%.2f,%.1f",
                        server, transport, clientCount, rooms, size, offered, publishRate, delivered, expected,
                        received, lostPct, h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(90) / 1000.0,
                        p99, h.getMaxValue() / 1000.0, Args.loadAverage(), label, cpuPct, cpuPerMsg, clientCpuPct);
                if (!record) {
                    System.err.println("prewarm: " + row);
                    Thread.sleep(1000);
                    continue;
                }
                Args.appendCsv(csv, HEADER, row);
                if (!hlogDir.isEmpty()) {
                    Path hlog = Path.of(hlogDir, String.format(Locale.ROOT, "%s-%s-%dc-%dr-%dB-%s%s.hlog", server,
                            transport, clientCount, rooms, size, rateText, label.isEmpty() ? "" : "-" + label.replaceAll("[^A-Za-z0-9._-]", "_")));
                    Files.createDirectories(hlog.getParent());
                    LatencyChart.writeLog(hlog, h, "us");
                }
                System.out.println(row);
                System.out.flush();
                Thread.sleep(1000);
                if (delivered < 0.9 * offered || p99 > kneeP99Ms || lostPct > 1.0) {
                    System.err.printf("knee reached at %.0f offered (delivered %.0f, p99 %.1f ms, lost %.1f%%)%n",
                            offered, delivered, p99, lostPct);
                    break;
                }
            }
        }
    }

    private static int subscribers(int room, int rooms, int clients) {
        return (clients - room + rooms - 1) / rooms; // how many i in [0, clients) have i % rooms == room
    }

    /** One chat message arrived at {@code now}, sent (intended) at {@code t}; both {@code System.nanoTime()}. */
    private void arrived(long t, long now) {
        arrivals.increment();
        if (t >= windowStart && t < windowEnd) {
            windowReceived.increment();
            latency.recordValue(Math.min(TimeUnit.SECONDS.toMicros(60), Math.max(0, (now - t) / 1000)));
        }
    }

    private final class MessageListenerImpl implements io.weft.client.MessageListener {
        @Override
        public void onMessage(Message message) {
            long now = System.nanoTime();
            Object data = message.getData();
            if (data instanceof Map<?, ?> map && map.get("t") instanceof Number sent) {
                arrived(sent.longValue(), now);
            } else {
                arrivals.increment();
            }
        }
    }
}
