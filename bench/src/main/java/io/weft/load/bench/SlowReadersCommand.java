package io.weft.load.bench;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code slow} (a fault run): chat at a fixed rate among the clients for {@code --phase-s}, then {@code --with-phases}
 * times the same with {@code --stalled} sockets ({@link StalledSocket}) that subscribed to every room and read nothing,
 * long enough for their queues to reach the server's bound; one {@code RESULT} line per phase, and
 * {@code STALLED <n> at <ms>} when the stalled sockets are in place.
 */
@Command(name = "slow", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Chat without, then with, sockets that stopped reading.")
final class SlowReadersCommand implements Callable<Integer> {
    @Mixin
    ClientOptions clients;

    @Option(names = "--clients", defaultValue = "500", description = "Chatting clients [${DEFAULT-VALUE}].")
    int count;

    @Option(names = "--rooms", defaultValue = "50", description = "Rooms [${DEFAULT-VALUE}].")
    int rooms;

    @Option(names = "--stalled", defaultValue = "50", description = "Sockets that stop reading [${DEFAULT-VALUE}].")
    int stalledCount;

    @Option(names = "--rate", defaultValue = "2000", description = "Deliveries per second offered [${DEFAULT-VALUE}].")
    int rate;

    @Option(names = "--phase-s", defaultValue = "60", description = "Seconds per phase [${DEFAULT-VALUE}].")
    long phaseSeconds;

    @Option(names = "--with-phases", defaultValue = "3",
            description = "Phases with the stalled sockets [${DEFAULT-VALUE}].")
    int withPhases;

    @Option(names = "--size", defaultValue = "500",
            description = "Padding per message: what a stalled socket is owed must outgrow the kernel's socket "
                    + "buffers and wait in the server [${DEFAULT-VALUE}].")
    int size;

    private final LongAdder received = new LongAdder();
    private final Histogram latency = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);

    @Override
    public Integer call() throws Exception {
        String padding = "x".repeat(size);
        try (Cohort cohort = clients.cohort()) {
            cohort.connect(count, (index, client, done) -> client.subscribe(Faults.room(index, rooms), message -> {
                long sent = ((Number) message.getDataAsMap().get("t")).longValue();
                synchronized (latency) {
                    latency.recordValue(Math.min(latency.getHighestTrackableValue(),
                            TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - sent)));
                }
                received.increment();
            }, Cohort.successOnly(done)));
            chat(cohort, "without", padding);
            List<StalledSocket> stalled = new ArrayList<>();
            URI ws = URI.create(clients.urls.get(0).toString().replace("http://", "ws://"));
            for (int i = 0; i < stalledCount; i++) {
                stalled.add(StalledSocket.open(ws, "/fault/*", 4096));
            }
            System.out.println("STALLED " + stalled.size() + " at " + System.currentTimeMillis());
            System.out.flush();
            Thread keepAlive = new Thread(() -> keepAlive(stalled), "stalled-keep-alive");
            keepAlive.setDaemon(true);
            keepAlive.start();
            for (int phase = 1; phase <= withPhases; phase++) {
                chat(cohort, "with-" + phase, padding);
            }
            keepAlive.interrupt();
            stalled.forEach(StalledSocket::close);
        }
        return 0;
    }

    /** Every 5 s, a /meta/connect from each stalled socket, so that its session lives on. */
    private static void keepAlive(List<StalledSocket> stalled) {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(5_000);
                for (StalledSocket socket : stalled) {
                    socket.keepAlive();
                }
            } catch (Exception x) {
                return;
            }
        }
    }

    private void chat(Cohort cohort, String phase, String padding) throws InterruptedException {
        int perRoom = Math.max(1, cohort.size() / rooms);
        long publishes = (long) rate * phaseSeconds / perRoom;
        long interval = TimeUnit.SECONDS.toNanos(phaseSeconds) / Math.max(1, publishes);
        synchronized (latency) {
            latency.reset();
        }
        received.reset();
        long start = System.nanoTime();
        for (long i = 0; i < publishes; i++) {
            long wait = start + i * interval - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            int index = (int) (i % cohort.size());
            cohort.get(index).publish(Faults.room(index, rooms), Map.of("t", System.nanoTime(), "p", padding));
        }
        Thread.sleep(3_000);
        long expected = publishes * perRoom;
        synchronized (latency) {
            System.out.printf(Locale.ROOT, "RESULT phase=%s offered_per_s=%d expected=%d received=%d p50_ms=%.1f "
                    + "p99_ms=%.1f max_ms=%.1f%n", phase, rate, expected, received.sum(),
                    latency.getValueAtPercentile(50) / 1000.0, latency.getValueAtPercentile(99) / 1000.0,
                    latency.getMaxValue() / 1000.0);
        }
        System.out.flush();
    }
}
