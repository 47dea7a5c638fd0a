package io.weft.bench;

import io.weft.client.BayeuxClient;
import io.weft.server.api.Promise;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The proxy fault: clients with the ack extension reach the server through a {@link ChaosProxy} that cuts a random
 * connection every {@code cut-ms}, while a publisher connected directly sends numbered messages to their rooms. At the
 * end, per client: what it received of what was published to its room, once and in order? Messages published while a
 * client's session had expired and it was handshaking again are not owed (the ack extension keeps messages only while
 * a session lives); every client's re-handshakes are counted, so the two cases are told apart.
 */
final class ProxyRun {
    private ProxyRun() {
    }

    /** What one client saw of its room. */
    private static final class Ledger {
        final int room;
        long next;
        long received;
        long duplicates;
        long reordered;
        long gaps;
        String lastId;
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
                reordered += 0;
                next = seq + 1;
            }
        }
    }

    static void run(Args args) throws Exception {
        String transport = args.get("transport", "long-polling");
        URI server = URI.create(args.get("url", "http://127.0.0.1:8080/cometd"));
        int count = args.getInt("clients", 100);
        int rooms = args.getInt("rooms", 10);
        int rate = args.getInt("rate", 200);
        long seconds = args.getLong("seconds", 60);
        long cutMillis = args.getLong("cut-ms", 200);
        try (ChaosProxy proxy = new ChaosProxy(new InetSocketAddress(server.getHost(), server.getPort()), cutMillis)) {
            String viaProxy = "http://127.0.0.1:" + proxy.port() + server.getPath();
            List<Ledger> ledgers = new ArrayList<>();
            try (Clients clients = new Clients(transport, new String[] {viaProxy}, args.getInt("max-threads", 64))
                    .ack(true);
                    Clients direct = new Clients("websocket", new String[] {server.toString()}, 8)) {
                int ready = clients.connect(count, 200, 120, (index, client, done) -> {
                    Ledger ledger = new Ledger(index % rooms);
                    synchronized (ledgers) {
                        while (ledgers.size() <= index) {
                            ledgers.add(null);
                        }
                        ledgers.set(index, ledger);
                    }
                    client.subscribe("/chaos/room" + ledger.room, message -> {
                        Object seq = Faults.data(message).get("seq");
                        if (seq instanceof Number number) {
                            ledger.arrived(number.longValue());
                        }
                    }, Clients.successOnly(done));
                });
                direct.connect(1, 1, 30, (index, client, done) -> done.succeed(null));
                BayeuxClient publisher = direct.all.get(0);
                System.err.printf("proxy %s: %d clients through the proxy; cutting every %d ms%n", transport, ready,
                        cutMillis);
                String[] ids = new String[clients.all.size()];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = clients.all.get(i).getId();
                }
                Thread watcher = new Thread(() -> watchHandshakes(clients, ledgers, ids));
                watcher.setDaemon(true);
                watcher.start();

                proxy.cutting(true);
                long[] published = new long[rooms];
                AtomicLong failedPublishes = new AtomicLong();
                long total = rate * seconds;
                long interval = TimeUnit.SECONDS.toNanos(1) / Math.max(1, rate);
                long start = System.nanoTime();
                for (long i = 0; i < total; i++) {
                    long wait = start + i * interval - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    int room = (int) (i % rooms);
                    publisher.publish("/chaos/room" + room, Map.of("seq", published[room]++), Promise.from(
                            reply -> {
                                if (!reply.isSuccessful()) {
                                    failedPublishes.incrementAndGet();
                                }
                            }, failure -> failedPublishes.incrementAndGet()));
                }
                proxy.cutting(false);
                // Drain: every ledger has all its room's messages, or 30 s have passed.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < deadline && !drained(ledgers, published)) {
                    Thread.sleep(100);
                }
                report(transport, ledgers, published, proxy, failedPublishes.get(), ready);
            }
        }
    }

    private static void watchHandshakes(Clients clients, List<Ledger> ledgers, String[] ids) {
        while (true) {
            for (int i = 0; i < ids.length; i++) {
                String id = clients.all.get(i).getId();
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

    private static void report(String transport, List<Ledger> ledgers, long[] published, ChaosProxy proxy,
            long failedPublishes, int ready) {
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
        System.out.printf(Locale.ROOT, "RESULT transport=%s clients=%d accepted_connections=%d cuts=%d published=%d "
                + "publish_failures=%d owed=%d received=%d lost=%d reordered=%d duplicates=%d "
                + "clients_rehandshaken=%d lost_across_rehandshake=%d%n", transport, ready, proxy.accepted(),
                proxy.cuts(), sum(published), failedPublishes, owed, received, lost, reordered, duplicates,
                handshook, lostAcrossHandshake);
    }

    private static long sum(long[] values) {
        long total = 0;
        for (long value : values) {
            total += value;
        }
        return total;
    }
}
