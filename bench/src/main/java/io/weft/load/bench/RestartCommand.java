package io.weft.load.bench;

import io.weft.client.BayeuxClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code restart} (a fault run): clients connect and print {@code READY clients=<n>}; after a line on stdin (the
 * script killed the server and started it again), how long until each client is back, handshaken on the new server,
 * and whether it receives again (one message per room, published by a client that is back).
 */
@Command(name = "restart", mixinStandardHelpOptions = true, sortOptions = false,
        description = "How long clients take to come back after the server restarts (a line on stdin: it did).")
final class RestartCommand implements Callable<Integer> {
    @Mixin
    ClientOptions clients;

    @Option(names = "--clients", defaultValue = "1000", description = "Clients [${DEFAULT-VALUE}].")
    int count;

    @Option(names = "--rooms", defaultValue = "10", description = "Rooms [${DEFAULT-VALUE}].")
    int rooms;

    @Option(names = "--recover-s", defaultValue = "90",
            description = "Seconds allowed for every client to come back [${DEFAULT-VALUE}].")
    long recoverSeconds;

    @Override
    public Integer call() throws Exception {
        AtomicLongArray lastArrival = new AtomicLongArray(count);
        try (Cohort cohort = clients.cohort()) {
            int ready = cohort.connect(count, (index, client, done) -> client.subscribe(Faults.room(index, rooms),
                    message -> lastArrival.set(index, System.nanoTime()), Cohort.successOnly(done)));
            String[] before = new String[cohort.size()];
            for (int i = 0; i < before.length; i++) {
                before[i] = cohort.get(i).getId();
            }
            System.out.println("READY clients=" + ready);
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            long killed = System.nanoTime();

            long[] back = awaitBack(cohort, before, killed);
            int recovered = (int) Arrays.stream(back).filter(nanos -> nanos >= 0).count();
            int gaveUp = 0;
            for (int i = 0; i < cohort.size(); i++) {
                gaveUp += cohort.get(i).getState() == BayeuxClient.State.DISCONNECTED ? 1 : 0;
            }
            int receiving = probeRooms(cohort, back, lastArrival, recovered);
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
        return 0;
    }

    /** Per client, the time from the kill until it was connected under a new id, or -1 if it was not in time. */
    private long[] awaitBack(Cohort cohort, String[] before, long killed) throws InterruptedException {
        long[] back = new long[before.length];
        Arrays.fill(back, -1);
        int recovered = 0;
        long deadline = killed + TimeUnit.SECONDS.toNanos(recoverSeconds);
        while (recovered < before.length && System.nanoTime() < deadline) {
            for (int i = 0; i < before.length; i++) {
                BayeuxClient client = cohort.get(i);
                String id = client.getId();
                if (back[i] < 0 && id != null && !id.equals(before[i])
                        && client.getState() == BayeuxClient.State.CONNECTED) {
                    back[i] = System.nanoTime() - killed;
                    recovered++;
                }
            }
            Thread.sleep(20);
        }
        return back;
    }

    /** One message per room, from a client that is back; how many clients that are back received theirs. */
    private int probeRooms(Cohort cohort, long[] back, AtomicLongArray lastArrival, int recovered)
            throws InterruptedException {
        long probe = System.nanoTime();
        for (int room = 0; room < rooms; room++) {
            for (int i = room; i < back.length; i += rooms) {
                if (back[i] >= 0) {
                    cohort.get(i).publish(Faults.room(i, rooms), Map.of("probe", true));
                    break;
                }
            }
        }
        return Faults.awaitCount(() -> {
            int n = 0;
            for (int i = 0; i < back.length; i++) {
                n += back[i] >= 0 && lastArrival.get(i) > probe ? 1 : 0;
            }
            return n;
        }, recovered, 15);
    }
}
