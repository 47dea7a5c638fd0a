package io.weft.load;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.Service;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The load server's side of the emitter benchmark (experiment 3 of docs/benchmarks): a publish of
 * {@code {periodMs, count}} to {@link #CHANNEL} makes the server publish {@code {seq, t}} to {@link #EMIT} every
 * {@code periodMs}, {@code count} times ({@code t}: epoch microseconds, for the clients on the same machine), from
 * one thread of its own; a new request replaces the schedule under way.
 */
public final class EmitterService implements AutoCloseable {
    public static final String CHANNEL = "/service/load/emit";
    public static final String EMIT = "/emit";

    private final ServerChannel channel;
    private final ScheduledExecutorService emitter = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "load-emitter");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicLong seq = new AtomicLong();
    private ScheduledFuture<?> emitting;

    EmitterService(BayeuxServer bayeux) {
        this.channel = bayeux.createChannelIfAbsent(EMIT);
        bayeux.addService(CHANNEL, Service.of((from, request) -> {
            Map<String, Object> data = request.getDataAsMap();
            start(((Number) data.get("periodMs")).longValue(), ((Number) data.get("count")).intValue());
            return Map.of("started", true);
        }));
    }

    private synchronized void start(long periodMs, int count) {
        if (emitting != null) {
            emitting.cancel(false);
        }
        AtomicLong left = new AtomicLong(count);
        emitting = emitter.scheduleAtFixedRate(() -> {
            if (left.getAndDecrement() <= 0) {
                throw new IllegalStateException("done"); // ends the schedule
            }
            channel.publish(null, Map.of("seq", seq.incrementAndGet(), "t", epochMicros()));
        }, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /** Now, in microseconds since the epoch: what the emitted messages carry, and what their receivers compare. */
    public static long epochMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }

    @Override
    public void close() {
        emitter.shutdownNow();
    }
}
