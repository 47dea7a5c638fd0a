package io.weft.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Message;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import io.weft.server.ext.AcknowledgedMessagesExtension;
import io.weft.server.api.ServerSession;
import io.weft.server.api.Service;
import io.weft.transport.longpoll.LongPollingConnectors;
import io.weft.transport.longpoll.LongPollingHandler;
import io.weft.transport.websocket.WebSocketHandler;
import io.weft.transport.websocket.WebSocketTransport;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The Weft server the benchmark scripts start: websocket and long-polling on {@code /cometd} (as the load server),
 * plus what the experiments need on the server side.
 *
 * <ul>
 *   <li>Emitter (experiment 3): a publish to {@code /service/bench/emit} with {@code {periodMs, count}} makes the
 *       server publish {@code {seq, t}} ({@code t} = epoch microseconds) to {@code /emit} every {@code periodMs}.</li>
 *   <li>Device relay (experiment 4): devices register with {@code /service/relay/register {device}}; requesters
 *       send {@code /service/relay/request {device, rid}}; the server delivers it to that device's session on
 *       {@code /device/request}; the device answers {@code /service/relay/reply {rid, from}}; the server delivers the
 *       answer to the requester on {@code /relay/response} and records the round trip it saw (request in to reply
 *       in).</li>
 *   <li>{@code GET /stats} (JSON): process CPU time, heap, RSS, emitter and relay statistics; {@code GET
 *       /stats?reset} also starts a new relay interval.</li>
 * </ul>
 *
 * <pre>java -cp ... io.weft.bench.BenchServer [port] [maxThreads]</pre>
 */
public final class BenchServer {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final boolean JETTY_DEFAULTS = Boolean.getBoolean("bench.jettyDefaults");

    private final BayeuxServer bayeux;
    private final ScheduledExecutorService emitter = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "bench-emitter");
        thread.setDaemon(true);
        return thread;
    });
    private volatile ScheduledFuture<?> emitting;
    private final AtomicLong emits = new AtomicLong();
    private final Recorder emitPublishMicros = new Recorder(3);

    private final Map<Integer, ServerSession> devices = new ConcurrentHashMap<>();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final Recorder relayMicros = new Recorder(3);
    private final AtomicLong relayed = new AtomicLong();
    private final AtomicLong relayMisses = new AtomicLong();

    private record Pending(ServerSession requester, long startNanos) {
    }

    private BenchServer(BayeuxServer bayeux) {
        this.bayeux = bayeux;
        bayeux.addService("/service/bench/emit", Service.of(this::startEmitting));
        bayeux.addService("/service/relay/register", (from, request, answer) -> {
            devices.put(((Number) request.getDataAsMap().get("device")).intValue(), from);
            answer.succeed(Map.of("registered", true));
        });
        bayeux.addService("/service/relay/request", (from, request, answer) -> {
            Map<String, Object> data = request.getDataAsMap();
            ServerSession device = devices.get(((Number) data.get("device")).intValue());
            long rid = ((Number) data.get("rid")).longValue();
            if (device == null) {
                relayMisses.incrementAndGet();
            } else {
                pending.put(rid, new Pending(from, System.nanoTime()));
                device.deliver(null, "/device/request", data);
            }
            answer.succeed(null);
        });
        bayeux.addService("/service/relay/reply", (from, request, answer) -> {
            Map<String, Object> data = request.getDataAsMap();
            Pending p = pending.remove(((Number) data.get("rid")).longValue());
            if (p != null) {
                relayMicros.recordValue(Math.max(0, (System.nanoTime() - p.startNanos) / 1000));
                relayed.incrementAndGet();
                p.requester.deliver(null, "/relay/response", data);
            }
            answer.succeed(null);
        });
    }

    private Object startEmitting(ServerSession from, Message request) {
        Map<String, Object> data = request.getDataAsMap();
        long period = ((Number) data.get("periodMs")).longValue();
        int count = ((Number) data.get("count")).intValue();
        ScheduledFuture<?> previous = emitting;
        if (previous != null) {
            previous.cancel(false);
        }
        AtomicLong left = new AtomicLong(count);
        ServerChannel channel = bayeux.createChannelIfAbsent("/emit");
        emitting = emitter.scheduleAtFixedRate(() -> {
            if (left.getAndDecrement() <= 0) {
                throw new IllegalStateException("done"); // ends the schedule
            }
            long seq = emits.incrementAndGet();
            long start = System.nanoTime();
            channel.publish(null, Map.of("seq", seq, "t", epochMicros()));
            emitPublishMicros.recordValue((System.nanoTime() - start) / 1000);
        }, period, period, TimeUnit.MILLISECONDS);
        return Map.of("started", true);
    }

    static long epochMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }

    private Histogram lastRelay;

    synchronized Map<String, Object> stats(boolean reset) {
        Map<String, Object> out = new LinkedHashMap<>();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        out.put("cpuNanos", os.getProcessCpuTime());
        out.put("uptimeMillis", ManagementFactory.getRuntimeMXBean().getUptime());
        out.put("heapUsed", ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        out.put("rss", rss());
        out.put("sessions", bayeux.getSessions().size());
        Map<String, Long> refusals = new LinkedHashMap<>();
        bayeux.getRefusals().forEach((limit, count) -> {
            if (count > 0) {
                refusals.put(limit.option(), count);
            }
        });
        out.put("refusals", refusals);
        out.put("emits", emits.get());
        Histogram emit = emitPublishMicros.getIntervalHistogram();
        out.put("emitPublishMaxMicros", emit.getTotalCount() == 0 ? 0 : emit.getMaxValue());
        out.put("devices", devices.size());
        out.put("relayed", relayed.get());
        out.put("relayMisses", relayMisses.get());
        if (reset || lastRelay == null) {
            lastRelay = relayMicros.getIntervalHistogram();
        } else {
            lastRelay.add(relayMicros.getIntervalHistogram());
        }
        Histogram h = lastRelay;
        Map<String, Object> relay = new LinkedHashMap<>();
        relay.put("count", h.getTotalCount());
        if (h.getTotalCount() > 0) {
            relay.put("avgMs", h.getMean() / 1000.0);
            relay.put("minMs", h.getMinValue() / 1000.0);
            relay.put("maxMs", h.getMaxValue() / 1000.0);
            relay.put("stddevMs", h.getStdDeviation() / 1000.0);
            relay.put("p50Ms", h.getValueAtPercentile(50) / 1000.0);
            relay.put("p99Ms", h.getValueAtPercentile(99) / 1000.0);
        }
        out.put("relayRoundTrip", relay);
        return out;
    }

    static long rss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (Exception x) {
            return -1;
        }
        return -1;
    }

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        int maxThreads = args.length > 1 ? Integer.parseInt(args[1]) : 256;
        BayeuxServer bayeux = BayeuxServer.create(ServerOptions.builder().timeout(20_000).maxInterval(10_000)
                // Every benchmark client comes from this machine; the peers have no such limit either.
                .maxSessionsPerAddress(Integer.MAX_VALUE).build());
        if (Boolean.getBoolean("bench.ack")) {
            // For the fault runs: clients that ask for acknowledged delivery get it.
            bayeux.addExtension(new AcknowledgedMessagesExtension());
        }
        BenchServer bench = new BenchServer(bayeux);

        QueuedThreadPool threads = new QueuedThreadPool(maxThreads);
        threads.setName("weft-bench");
        Server jetty = new Server(threads);
        // Weft's recommended connector settings for parked long-polls (no per-connection header field cache, 4 KB
        // request buffers); -Dbench.jettyDefaults=true measures Jetty's defaults instead.
        HttpConfiguration http = JETTY_DEFAULTS ? new HttpConfiguration() : LongPollingConnectors.httpConfiguration();
        ServerConnector connector = new ServerConnector(jetty, new HttpConnectionFactory(http));
        connector.setHost("0.0.0.0");
        connector.setPort(port);
        connector.setAcceptQueueSize(4096);
        jetty.addConnector(connector);
        ContextHandler polling = new ContextHandler(new LongPollingHandler(bayeux), "/cometd");
        polling.setAllowNullPathInContext(true);
        WebSocketHandler upgrades = WebSocketTransport.install(bayeux, jetty, "/cometd/*");
        upgrades.setHandler(polling);
        ContextHandler stats = new ContextHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                String query = request.getHttpURI().getQuery();
                byte[] body = JSON.writeValueAsBytes(bench.stats(query != null && query.contains("reset")));
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                response.write(true, ByteBuffer.wrap(body), callback);
                return true;
            }
        }, "/stats");
        stats.setAllowNullPathInContext(true);
        jetty.setHandler(new Handler.Sequence(upgrades, stats));
        jetty.setStopAtShutdown(true);
        jetty.start();
        System.out.println("READY port=" + connector.getLocalPort());
        System.out.flush();
        jetty.join();
        bayeux.close();
    }
}
