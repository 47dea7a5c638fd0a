package io.weft.load;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerSession;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The load server's side of the device relay benchmark (experiment 4 of docs/benchmarks, after Cometa): devices
 * register with {@link #REGISTER} {@code {device}}; a requester publishes {@link #REQUEST} {@code {device, rid, ...}},
 * which the server delivers to that device's session on {@link #DEVICE}; the device answers {@link #REPLY} with the
 * same data, which the server delivers to the requester on {@link #RESPONSE}, recording the round trip it saw (request
 * in to reply in). {@link #start()} and {@link #report()} frame a measured run (the load services call them).
 */
public final class RelayService {
    public static final String REGISTER = "/service/load/relay/register";
    public static final String REQUEST = "/service/load/relay/request";
    public static final String REPLY = "/service/load/relay/reply";
    public static final String DEVICE = "/device/request";
    public static final String RESPONSE = "/relay/response";

    private record Pending(ServerSession requester, long startNanos) {
    }

    private final Map<Integer, ServerSession> devices = new ConcurrentHashMap<>();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final Recorder roundTripMicros = new Recorder(3);
    private final LongAdder relayed = new LongAdder();
    private final LongAdder misses = new LongAdder();

    RelayService(BayeuxServer bayeux) {
        bayeux.addService(REGISTER, (from, request, answer) -> {
            devices.put(((Number) request.getDataAsMap().get("device")).intValue(), from);
            answer.succeed(Map.of("registered", true));
        });
        bayeux.addService(REQUEST, (from, request, answer) -> {
            Map<String, Object> data = request.getDataAsMap();
            ServerSession device = devices.get(((Number) data.get("device")).intValue());
            if (device == null) {
                misses.increment();
            } else {
                pending.put(((Number) data.get("rid")).longValue(), new Pending(from, System.nanoTime()));
                device.deliver(null, DEVICE, data);
            }
            answer.succeed(null);
        });
        bayeux.addService(REPLY, (from, request, answer) -> {
            Map<String, Object> data = request.getDataAsMap();
            Pending asked = pending.remove(((Number) data.get("rid")).longValue());
            if (asked != null) {
                roundTripMicros.recordValue(Math.max(0, (System.nanoTime() - asked.startNanos()) / 1000));
                relayed.increment();
                asked.requester().deliver(null, RESPONSE, data);
            }
            answer.succeed(null);
        });
    }

    /** A measured run starts: round trips are counted from now on. */
    void start() {
        roundTripMicros.reset();
        relayed.reset();
        misses.reset();
    }

    /**
     * The round trips since {@link #start()} ({@code count}, and {@code avgMs}, {@code minMs}, {@code maxMs},
     * {@code stddevMs}, {@code p50Ms}, {@code p99Ms} when there were any), with the devices registered and the
     * requests for unknown devices; null when no device ever registered.
     */
    Map<String, Object> report() {
        if (devices.isEmpty()) {
            return null;
        }
        Histogram h = roundTripMicros.getIntervalHistogram();
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("devices", devices.size());
        report.put("relayed", relayed.sum());
        report.put("misses", misses.sum());
        report.put("count", h.getTotalCount());
        if (h.getTotalCount() > 0) {
            report.put("avgMs", h.getMean() / 1000.0);
            report.put("minMs", h.getMinValue() / 1000.0);
            report.put("maxMs", h.getMaxValue() / 1000.0);
            report.put("stddevMs", h.getStdDeviation() / 1000.0);
            report.put("p50Ms", h.getValueAtPercentile(50) / 1000.0);
            report.put("p99Ms", h.getValueAtPercentile(99) / 1000.0);
        }
        return report;
    }
}
