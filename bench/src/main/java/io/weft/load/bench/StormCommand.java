package io.weft.load.bench;

import io.weft.bayeux.Promise;
import io.weft.client.BayeuxClient;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code storm} (a fault run): clients connect, then all drop their connections at once, without a disconnect, and as
 * many new ones handshake at once: the handshakes' latency, how many are refused, how long until all are back.
 */
@Command(name = "storm", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Every client drops at once and as many handshake at once.")
final class StormCommand implements Callable<Integer> {
    @Mixin
    ClientOptions clients;

    @Option(names = "--clients", defaultValue = "2000", description = "Clients [${DEFAULT-VALUE}].")
    int count;

    @Option(names = "--rooms", defaultValue = "100", description = "Rooms [${DEFAULT-VALUE}].")
    int rooms;

    @Override
    public Integer call() throws Exception {
        Cohort first = clients.cohort();
        int ready = first.connect(count, (index, client, done) -> client.subscribe(Faults.room(index, rooms),
                message -> { }, Cohort.successOnly(done)));
        System.err.printf("storm: %d clients connected; every connection dropped at once%n", ready);
        first.abandon();

        Histogram handshakeMillis = new Histogram(3);
        AtomicInteger refused = new AtomicInteger();
        CountDownLatch subscribed = new CountDownLatch(count);
        long start = System.nanoTime();
        try (Cohort second = clients.cohort()) {
            for (int i = 0; i < count; i++) {
                int index = i;
                BayeuxClient client = second.add();
                long asked = System.nanoTime();
                client.handshake(Promise.from(reply -> {
                    synchronized (handshakeMillis) {
                        handshakeMillis.recordValue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked));
                    }
                    if (reply.isSuccessful()) {
                        client.subscribe(Faults.room(index, rooms), message -> { }, Promise.from(
                                r -> subscribed.countDown(), failure -> { }));
                    } else {
                        refused.incrementAndGet();
                    }
                }, failure -> refused.incrementAndGet()));
            }
            boolean all = subscribed.await(120, TimeUnit.SECONDS);
            long allMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            synchronized (handshakeMillis) {
                System.out.printf(Locale.ROOT, "RESULT clients=%d first_connected=%d back=%d refused=%d "
                        + "handshake_p50_ms=%d handshake_p99_ms=%d handshake_max_ms=%d all_back_ms=%d%n", count,
                        ready, count - subscribed.getCount(), refused.get(), handshakeMillis.getValueAtPercentile(50),
                        handshakeMillis.getValueAtPercentile(99), handshakeMillis.getMaxValue(),
                        all ? allMillis : -1);
            }
        }
        return 0;
    }
}
