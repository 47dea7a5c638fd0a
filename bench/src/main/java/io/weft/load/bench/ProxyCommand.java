package io.weft.load.bench;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.client.BayeuxClient;
import io.weft.load.ClientRuntime;
import io.weft.load.LoadConfig;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code proxy} (a fault run): clients with the ack extension reach the server (the first of {@code --urls}) through a
 * {@link ChaosProxy} that cuts a random connection every {@code --cut-ms}, while a publisher connected directly sends
 * numbered messages to their rooms. At the end, per client: did it receive what was published to its room, once and in
 * order? Messages published while a client's session had expired and it was handshaking again are not owed (the ack
 * extension keeps messages only while a session lives); every client's re-handshakes are counted, so the two cases
 * are told apart.
 */
@Command(name = "proxy", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Acknowledged delivery through a proxy that keeps cutting connections.")
final class ProxyCommand implements Callable<Integer> {
    @Mixin
    ClientOptions clients;

    @Option(names = "--clients", defaultValue = "100", description = "Clients behind the proxy [${DEFAULT-VALUE}].")
    int count;

    @Option(names = "--rooms", defaultValue = "10", description = "Rooms [${DEFAULT-VALUE}].")
    int rooms;

    @Option(names = "--rate", defaultValue = "200", description = "Publishes per second [${DEFAULT-VALUE}].")
    int rate;

    @Option(names = "--seconds", defaultValue = "60", description = "Seconds of publishing [${DEFAULT-VALUE}].")
    long seconds;

    @Option(names = "--cut-ms", defaultValue = "200",
            description = "A connection is cut every this many ms [${DEFAULT-VALUE}].")
    long cutMillis;

    /** What one client saw of its room. */
    private static final class Ledger {
        final int room;
        long next;
        long received;
        long duplicates;
        long gaps;
        int handshakes;

        Ledger(int room) {
            this.room = room;
        }

        synchronized void arrived(long seq) {
            received++;
            if (seq == next) {
                next++;
            } else if (seq < next) {
                duplicates++;
            } else {
                // A skip: messages next..seq-1 are missing here, unless they arrive later (then reordered).
                gaps += seq - next;
                next = seq + 1;
            }
        }
    }

    @Override
    public Integer call() throws Exception {
        URI server = clients.urls.get(0);
        try (ChaosProxy proxy = new ChaosProxy(new InetSocketAddress(server.getHost(), server.getPort()), cutMillis)) {
            URI viaProxy = URI.create("http://127.0.0.1:" + proxy.port() + server.getPath());
            List<Ledger> ledgers = new ArrayList<>();
            try (Cohort behind = new Cohort(new ClientRuntime(clients.transport.connectionType(), clients.maxThreads,
                    false, true), List.of(viaProxy), 200, 120);
                    Cohort direct = new Cohort(new ClientRuntime(LoadConfig.WEBSOCKET, 8, false, false),
                            List.of(server), 1, 30)) {
                int ready = behind.connect(count, (index, client, done) -> {
                    Ledger ledger = new Ledger(index % rooms);
                    synchronized (ledgers) {
                        while (ledgers.size() <= index) {
                            ledgers.add(null);
                        }
                        ledgers.set(index, ledger);
                    }
                    client.subscribe("/chaos/room" + ledger.room, message -> {
                        if (Faults.data(message).get("seq") instanceof Number seq) {
                            ledger.arrived(seq.longValue());
                        }
                    }, Cohort.successOnly(done));
                });
                direct.connect(1, (index, client, done) -> done.succeed(null));
                System.err.printf("proxy %s: %d clients through the proxy; cutting every %d ms%n", clients.transport,
                        ready, cutMillis);
                String[] ids = new String[behind.size()];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = behind.get(i).getId();
                }
                Thread watcher = new Thread(() -> watchHandshakes(behind, ledgers, ids), "handshake-watcher");
                watcher.setDaemon(true);
                watcher.start();

                proxy.cutting(true);
                long[] published = new long[rooms];
                AtomicLong failedPublishes = new AtomicLong();
                publish(direct.get(0), published, failedPublishes);
                proxy.cutting(false);
                // Drain: every ledger has all its room's messages, or 30 s have passed.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < deadline && !drained(ledgers, published)) {
                    Thread.sleep(100);
                }
                watcher.interrupt();
                report(ledgers, published, proxy, failedPublishes.get(), ready);
            }
        }
        return 0;
    }

    /** Numbered messages to each room in turn, at the rate, for the seconds. */
    private void publish(BayeuxClient publisher, long[] published, AtomicLong failedPublishes) {
        long total = rate * seconds;
        long interval = TimeUnit.SECONDS.toNanos(1) / Math.max(1, rate);
        long start = System.nanoTime();
        Promise<Message> counted = Promise.from(reply -> {
            if (!reply.isSuccessful()) {
                failedPublishes.incrementAndGet();
            }
        }, failure -> failedPublishes.incrementAndGet());
        for (long i = 0; i < total; i++) {
            long wait = start + i * interval - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            int room = (int) (i % rooms);
            publisher.publish("/chaos/room" + room, Map.of("seq", published[room]++), counted);
        }
    }

    private static void watchHandshakes(Cohort behind, List<Ledger> ledgers, String[] ids) {
        while (!Thread.currentThread().isInterrupted()) {
            for (int i = 0; i < ids.length; i++) {
                String id = behind.get(i).getId();
                if (id != null && !id.equals(ids[i])) {
                    ids[i] = id;
                    Ledger ledger;
                    synchronized (ledgers) {
                        ledger = ledgers.get(i);
                    }
                    synchronized (ledger) {
                        ledger.handshakes++;
                    }
                }
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException x) {
                return;
            }
        }
    }

    private static boolean drained(List<Ledger> ledgers, long[] published) {
        synchronized (ledgers) {
            for (Ledger ledger : ledgers) {
                synchronized (ledger) {
                    if (ledger.next < published[ledger.room]) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private void report(List<Ledger> ledgers, long[] published, ChaosProxy proxy, long failedPublishes, int ready) {
        long owed = 0;
        long received = 0;
        long lost = 0;
        long lostAcrossHandshake = 0;
        long duplicates = 0;
        long reordered = 0;
        int handshook = 0;
        synchronized (ledgers) {
            for (Ledger ledger : ledgers) {
                synchronized (ledger) {
                    owed += published[ledger.room];
                    received += ledger.received;
                    duplicates += ledger.duplicates;
                    long missing = ledger.gaps + (published[ledger.room] - ledger.next);
                    if (ledger.handshakes > 0) {
                        handshook++;
                        lostAcrossHandshake += missing;
                    } else {
                        lost += missing;
                    }
                    // A message that came after a later one counted as a duplicate-after-skip: the skip is a gap
                    // that the late arrival filled, out of order.
                    reordered += Math.min(ledger.gaps, ledger.duplicates);
                }
            }
        }
        long total = 0;
        for (long each : published) {
            total += each;
        }
        System.out.printf(Locale.ROOT, "RESULT transport=%s clients=%d accepted_connections=%d cuts=%d published=%d "
                + "publish_failures=%d owed=%d received=%d lost=%d reordered=%d duplicates=%d "
                + "clients_rehandshaken=%d lost_across_rehandshake=%d%n", clients.transport.connectionType(), ready,
                proxy.accepted(), proxy.cuts(), total, failedPublishes, owed, received, lost, reordered, duplicates,
                handshook, lostAcrossHandshake);
    }
}
