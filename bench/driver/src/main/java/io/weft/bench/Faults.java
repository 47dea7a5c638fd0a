package io.weft.bench;

import io.weft.client.BayeuxClient;
import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * The fault runs of bench/faults.sh, each printing one {@code RESULT key=value ...} line:
 * <ul>
 *   <li>{@code restart}: clients connect and print READY; after a line on stdin (the server was killed and started
 *       again), how long until each client is back: re-handshaken on the new server and receiving again.</li>
 *   <li>{@code storm}: clients connect, then all drop their connections at once and as many handshake at once.</li>
 *   <li>{@code slow}: a chat load measured without, then with, sockets that stop reading.</li>
 *   <li>{@code proxy}: see {@link ProxyRun}.</li>
 * </ul>
 */
final class Faults {
    private Faults() {
    }

    static void main(String command, Args args) throws Exception {
        switch (command) {
            case "restart" -> restart(args);
            case "storm" -> storm(args);
            case "slow" -> slow(args);
            case "proxy" -> ProxyRun.run(args);
            default -> throw new IllegalArgumentException("unknown fault " + command);
        }
    }

    private static void restart(Args args) throws Exception {
        int count = args.getInt("clients", 1000);
        int rooms = args.getInt("rooms", 10);
        long recoverSeconds = args.getLong("recover-s", 90);
        AtomicLongArray lastArrival = new AtomicLongArray(count);
        try (Clients clients = new Clients(args.get("transport", "websocket"), args.list("urls", ""),
                args.getInt("max-threads", 64))) {
            int ready = clients.connect(count, 500, 180, (index, client, done) -> client.subscribe(
                    room(index, rooms), m -> lastArrival.set(index, System.nanoTime()), Clients.successOnly(done)));
            String[] before = new String[clients.all.size()];
            for (int i = 0; i < before.length; i++) {
                before[i] = clients.all.get(i).getId();
            }
            System.out.println("READY clients=" + ready);
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            long killed = System.nanoTime();

            long[] back = new long[before.length];
            Arrays.fill(back, -1);
            int recovered = 0;
            long deadline = killed + TimeUnit.SECONDS.toNanos(recoverSeconds);
            while (recovered < before.length && System.nanoTime() < deadline) {
                for (int i = 0; i < before.length; i++) {
                    BayeuxClient client = clients.all.get(i);
                    String id = client.getId();
                    if (back[i] < 0 && id != null && !id.equals(before[i])
                            && client.getState() == BayeuxClient.State.CONNECTED) {
                        back[i] = System.nanoTime() - killed;
                        recovered++;
                    }
                }
                Thread.sleep(20);
            }
            int gaveUp = 0;
            for (BayeuxClient client : clients.all) {
                if (client.getState() == BayeuxClient.State.DISCONNECTED) {
                    gaveUp++;
                }
            }
            // Receiving again: one message per room, from a client that is back, reaches every client that is back.
            long probe = System.nanoTime();
            for (int room = 0; room < rooms; room++) {
                for (int i = room; i < before.length; i += rooms) {
                    if (back[i] >= 0) {
                        clients.all.get(i).publish(room(i, rooms), Map.of("probe", true));
                        break;
                    }
                }
            }
            int receiving = awaitCount(() -> {
                int n = 0;
                for (int i = 0; i < before.length; i++) {
                    n += back[i] >= 0 && lastArrival.get(i) > probe ? 1 : 0;
                }
                return n;
            }, recovered, 15);
            Histogram millis = new Histogram(3);
            long first = Long.MAX_VALUE;
            long last = 0;
            for (long nanos : back) {
                if (nanos >= 0) {
                    long ms = TimeUnit.NANOSECONDS.toMillis(nanos);
                    millis.recordValue(ms);
                    first = Math.min(first, ms);
                    last = Math.max(last, ms);
                }
            }
            System.out.printf(Locale.ROOT, "RESULT clients=%d recovered=%d gave_up=%d receiving=%d first_ms=%d "
                    + "p50_ms=%d p99_ms=%d all_ms=%d%n", before.length, recovered, gaveUp, receiving,
                    recovered == 0 ? -1 : first, millis.getValueAtPercentile(50), millis.getValueAtPercentile(99),
                    recovered == before.length ? last : -1);
        }
    }

    /** Waits until {@code value} reaches {@code target} or {@code seconds} pass; returns the last value. */
    static int awaitCount(java.util.function.IntSupplier value, int target, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        int now = value.getAsInt();
        while (now < target && System.nanoTime() < deadline) {
            Thread.sleep(20);
            now = value.getAsInt();
        }
        return now;
    }

    static String room(int index, int rooms) {
        return "/fault/room" + (index % rooms);
    }

    private static void storm(Args args) throws Exception {
        int count = args.getInt("clients", 2000);
        String transport = args.get("transport", "websocket");
        String[] urls = args.list("urls", "");
        int rooms = args.getInt("rooms", 100);
        Clients first = new Clients(transport, urls, args.getInt("max-threads", 64));
        int ready = first.connect(count, 500, 180, (index, client, done) ->
                client.subscribe(room(index, rooms), m -> { }, Clients.successOnly(done)));
        System.err.printf("storm: %d clients connected; every connection dropped at once%n", ready);
        first.abandon();

        Histogram handshakeMillis = new Histogram(3);
        AtomicInteger refused = new AtomicInteger();
        CountDownLatch subscribed = new CountDownLatch(count);
        long start = System.nanoTime();
        try (Clients second = new Clients(transport, urls, args.getInt("max-threads", 64))) {
            for (int i = 0; i < count; i++) {
                int index = i;
                BayeuxClient client = second.newClient(index);
                second.all.add(client);
                long asked = System.nanoTime();
                client.handshake(Promise.from(reply -> {
                    synchronized (handshakeMillis) {
                        handshakeMillis.recordValue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked));
                    }
                    if (reply.isSuccessful()) {
                        client.subscribe(room(index, rooms), m -> { }, Promise.from(r -> subscribed.countDown(),
                                f -> { }));
                    } else {
                        refused.incrementAndGet();
                    }
                }, failure -> refused.incrementAndGet()));
            }
            boolean all = subscribed.await(120, TimeUnit.SECONDS);
            long allMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.printf(Locale.ROOT, "RESULT clients=%d first_connected=%d back=%d refused=%d "
                    + "handshake_p50_ms=%d handshake_p99_ms=%d handshake_max_ms=%d all_back_ms=%d%n", count, ready,
                    count - subscribed.getCount(), refused.get(), handshakeMillis.getValueAtPercentile(50),
                    handshakeMillis.getValueAtPercentile(99), handshakeMillis.getMaxValue(), all ? allMillis : -1);
        }
    }

    /**
     * Chat at a fixed rate among {@code clients} library clients for {@code phase-s}, then {@code with-phases} times
     * the same with {@code stalled} sockets that subscribed to every room and read nothing (long enough for their
     * queues to reach {@code maxQueue}); prints one RESULT line per phase.
     */
    private static void slow(Args args) throws Exception {
        int count = args.getInt("clients", 500);
        int rooms = args.getInt("rooms", 50);
        int stalledCount = args.getInt("stalled", 50);
        int rate = args.getInt("rate", 2000);
        long phaseSeconds = args.getLong("phase-s", 60);
        // Large enough that what a stalled socket is owed outgrows the kernel's socket buffers and waits in the server.
        String padding = "x".repeat(args.getInt("size", 500));
        String[] urls = args.list("urls", "");
        LongAdder received = new LongAdder();
        Histogram latency = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        try (Clients clients = new Clients("websocket", urls, args.getInt("max-threads", 64))) {
            clients.connect(count, 500, 180, (index, client, done) -> client.subscribe(room(index, rooms), m -> {
                long sent = ((Number) m.getDataAsMap().get("t")).longValue();
                synchronized (latency) {
                    latency.recordValue(Math.min(latency.getHighestTrackableValue(),
                            TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - sent)));
                }
                received.increment();
            }, Clients.successOnly(done)));
            chat(clients, rooms, rate, phaseSeconds, latency, received, "without", padding);
            List<StalledSocket> stalled = new ArrayList<>();
            URI ws = URI.create(urls[0].replace("http://", "ws://"));
            for (int i = 0; i < stalledCount; i++) {
                stalled.add(StalledSocket.open(ws, "/fault/*", 4096));
            }
            System.out.println("STALLED " + stalled.size() + " at " + System.currentTimeMillis());
            System.out.flush();
            Thread keepAlive = new Thread(() -> {
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
            });
            keepAlive.setDaemon(true);
            keepAlive.start();
            for (int phase = 1; phase <= args.getInt("with-phases", 3); phase++) {
                chat(clients, rooms, rate, phaseSeconds, latency, received, "with-" + phase, padding);
            }
            keepAlive.interrupt();
            stalled.forEach(StalledSocket::close);
        }
    }

    private static void chat(Clients clients, int rooms, int rate, long seconds, Histogram latency, LongAdder received,
            String phase, String padding) throws Exception {
        int perRoom = Math.max(1, clients.all.size() / rooms);
        long publishes = (long) rate * seconds / perRoom;
        long interval = TimeUnit.SECONDS.toNanos(seconds) / Math.max(1, publishes);
        synchronized (latency) {
            latency.reset();
        }
        received.reset();
        long start = System.nanoTime();
        for (long i = 0; i < publishes; i++) {
            long due = start + i * interval;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(wait);
            }
            int index = (int) (i % clients.all.size());
            clients.all.get(index).publish(room(index, rooms), Map.of("t", System.nanoTime(), "p", padding));
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

    /** Message data as a map, or an empty one. */
    static Map<String, Object> data(Message message) {
        Map<String, Object> data = message.getDataAsMap();
        return data == null ? Map.of() : data;
    }
}
