package io.weft.server.stress;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.EndReason;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.ext.AcknowledgedMessagesExtension;
import io.weft.server.internal.BayeuxServerImpl;
import io.weft.server.internal.time.ExecutorScheduler;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.stress.StressClient.Role;
import io.weft.server.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Many clients at once on a real server with its own timer thread and short timeouts, so that held connects time out,
 * sessions expire and channels are swept while clients publish, subscribe, unsubscribe, drop connections, come back,
 * disconnect and vanish, over long-polling and websocket, with and without acknowledgements, and while server code
 * publishes and disconnects sessions.
 *
 * <p>It checks that nothing throws anywhere (client threads, timer tasks, the server's own log), that every reliable
 * session received every message published while it was surely subscribed, exactly once and in each publisher's
 * order, that no session received what it could not have been subscribed to, and that once every client has gone
 * the server holds no session, no channel but the persistent one, and no timer but its channel sweep, and after
 * {@code close()} none at all. About 15 s on an idle machine; bounded waits on conditions, never on a sleep.
 */
@Tag("stress")
class ConcurrencyStressTest {
    private static final long PUBLISH_MILLIS = 10_000;
    private static final long RELIABLE_MAX_INTERVAL = 10_000;
    private static final ServerOptions OPTIONS = ServerOptions.builder().timeout(200).maxInterval(300)
            .sweepPeriod(50).build();
    private static final String SWEEP = BayeuxServerImpl.class.getName();

    @Test
    void manyClientsAtOnceGetWhatTheyAreOwedAndLeaveNothingBehind() throws Exception {
        long seed = Long.getLong("weft.seed", new Random().nextLong());
        Ledger ledger = new Ledger();
        CountingScheduler scheduler = new CountingScheduler(new ExecutorScheduler("stress-scheduler"));
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, x) -> ledger.problem("uncaught in " + thread.getName()
                + ": " + Stage.stackTrace(x)));
        long started = System.nanoTime();
        SessionWatch sessions = new SessionWatch(ledger);
        try (WarningLog warnings = WarningLog.install()) {
            BayeuxServer server = BayeuxServer.create(OPTIONS, scheduler);
            server.addExtension(new AcknowledgedMessagesExtension());
            server.setSecurityPolicy(new Roles(ledger));
            server.addListener(sessions);
            server.createChannelIfAbsent("/lazy", channel -> {
                channel.setPersistent(true);
                channel.setLazy(true);
                channel.setLazyTimeout(50);
            });

            List<Callable<Void>> actors = actors(server, ledger, seed);
            ExecutorService pool = Executors.newFixedThreadPool(actors.size(), named("stress-actor-"));
            actors.forEach(pool::submit);
            pool.shutdown();
            if (!pool.awaitTermination(120, TimeUnit.SECONDS)) {
                ledger.problem("actors still running 120 s after the start:\n" + stacks("stress-actor-"));
                pool.shutdownNow();
            }

            waitFor(ledger, "no session left", 30, () -> server.getSessions().isEmpty(),
                    () -> describe(server.getSessions()));
            waitFor(ledger, "no channel left but the persistent /lazy", 10,
                    () -> nonPersistentChannels(server).isEmpty(), () -> nonPersistentChannels(server).toString());
            waitFor(ledger, "no timer waiting but the channel sweep", 10,
                    () -> scheduler.waitingExcept(SWEEP).isEmpty(), () -> scheduler.waiting().toString());
            server.close();
            waitFor(ledger, "no timer waiting once the server is closed", 10, () -> scheduler.waiting().isEmpty(),
                    () -> scheduler.waiting().toString());

            checkDeliveries(ledger);
            sessions.check();
            scheduler.failures().forEach(x -> ledger.problem("a timer task threw: " + Stage.stackTrace(x)));
            warnings.lines().forEach(line -> ledger.problem("logged: " + line));
            System.out.printf("stress run (seed %d): %d publishes, %d sessions (%s), %d timers scheduled, "
                    + "refusals %s, %d s%n  %s%n", seed, ledger.publishCount(), ledger.sessions().size(),
                    sessions.endings(), scheduler.scheduled(), nonZero(server.getRefusals()),
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), ledger.counts());
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
            scheduler.close();
        }
        List<String> problems = new ArrayList<>(ledger.problems());
        assertTrue(problems.isEmpty(), problems.size() + " problems (seed " + seed + "), the first ones:\n  "
                + String.join("\n  ", problems.subList(0, Math.min(30, problems.size()))));
    }

    /** Twenty clients of every kind, server code that publishes, and server code that disconnects chaotic sessions. */
    private static List<Callable<Void>> actors(BayeuxServer server, Ledger ledger, long seed) {
        Random seeds = new Random(seed);
        InMemoryTransport polling = InMemoryTransport.polling(server);
        InMemoryTransport websocket = InMemoryTransport.websocket(server);
        Stage stage = new Stage(ledger, OPTIONS, PUBLISH_MILLIS, 22);
        List<Callable<Void>> actors = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            actors.add(new PollingStressClient(polling, "polling-acked-" + i, Role.RELIABLE, true, seeds.nextLong(), stage));
            actors.add(new SocketStressClient(websocket, "socket-acked-" + i, Role.RELIABLE, true, seeds.nextLong(), stage));
        }
        for (int i = 0; i < 2; i++) {
            actors.add(new PollingStressClient(polling, "polling-steady-" + i, Role.RELIABLE, false, seeds.nextLong(),
                    stage));
            actors.add(new SocketStressClient(websocket, "socket-steady-" + i, Role.RELIABLE, false, seeds.nextLong(),
                    stage));
        }
        for (int i = 0; i < 5; i++) {
            actors.add(new PollingStressClient(polling, "polling-chaotic-" + i, Role.CHAOTIC, false, seeds.nextLong(),
                    stage));
            actors.add(new SocketStressClient(websocket, "socket-chaotic-" + i, Role.CHAOTIC, false, seeds.nextLong(),
                    stage));
        }
        actors.add(serverPublisher(server, stage, new Random(seeds.nextLong())));
        actors.add(serverDisconnects(server, stage, new Random(seeds.nextLong())));
        return actors;
    }

    /** Server code publishing through {@code createChannelIfAbsent(...).publish}, racing the channel sweep. */
    private static Callable<Void> serverPublisher(BayeuxServer server, Stage stage, Random random) {
        return () -> {
            Ledger ledger = stage.ledger();
            long seq = 0;
            try {
                while (stage.publishing()) {
                    String channel = StressClient.CHANNELS.get(random.nextInt(StressClient.CHANNELS.size()));
                    long id = ledger.nextPublishId();
                    long number = ++seq;
                    boolean[] delivered = new boolean[1];
                    long sent = ledger.tick();
                    server.createChannelIfAbsent(channel).publish(null, Map.of("g", id, "t", "server", "s", number),
                            Promise.from(ok -> delivered[0] = ok, x -> ledger.problem("server publish failed: " + x)));
                    long answered = ledger.tick();
                    ledger.published(new Ledger.Publish(id, "server", number, ChannelId.of(channel), sent, answered,
                            delivered[0]));
                    StressClient.sleep(2 + random.nextInt(5));
                }
            } catch (Throwable x) {
                ledger.problem("the server publisher failed: " + Stage.stackTrace(x));
            }
            stage.publishingStopped("server publisher");
            return null;
        };
    }

    /** Server code disconnecting a chaotic session now and then. */
    private static Callable<Void> serverDisconnects(BayeuxServer server, Stage stage, Random random) {
        return () -> {
            try {
                while (stage.publishing()) {
                    StressClient.sleep(100 + random.nextInt(200));
                    List<ServerSession> chaotic = server.getSessions().stream()
                            .filter(session -> Role.CHAOTIC.name().equals(session.getAttribute(StressClient.ROLE)))
                            .toList();
                    if (!chaotic.isEmpty()) {
                        ServerSession victim = chaotic.get(random.nextInt(chaotic.size()));
                        stage.disconnectingByServer(victim.getId());
                        victim.disconnect();
                    }
                }
            } catch (Throwable x) {
                stage.ledger().problem("the server's disconnecter failed: " + Stage.stackTrace(x));
            }
            stage.publishingStopped("server disconnects");
            return null;
        };
    }

    /** Each session received nothing it could not have been subscribed for, and a reliable one all it was owed. */
    private static void checkDeliveries(Ledger ledger) {
        for (Ledger.SessionLog log : ledger.sessions()) {
            for (String unexpected : log.unexpected()) {
                ledger.problem(log + " received " + unexpected);
            }
            if (log.reliable && log.lost == null) {
                ledger.count("reliable sessions checked for completeness");
                ledger.count("deliveries owed to reliable sessions", log.owed());
                List<Ledger.Publish> missing = log.missing();
                if (!missing.isEmpty()) {
                    ledger.problem(log + " never received " + missing.size() + " messages published while it was "
                            + "subscribed, among them " + missing.subList(0, Math.min(5, missing.size())));
                }
            }
        }
    }

    /** Tells reliable sessions from chaotic ones, as the handshake says, and gives reliable ones a long maxInterval. */
    private static final class Roles implements SecurityPolicy {
        private final Ledger ledger;

        Roles(Ledger ledger) {
            this.ledger = ledger;
        }

        @Override
        public boolean canHandshake(BayeuxServer server, ServerSession session, Message handshake) {
            try {
                Object role = handshake.getExt() == null ? null : handshake.getExt().get("stress");
                session.setAttribute(StressClient.ROLE, String.valueOf(role));
                if (Role.RELIABLE.name().equals(role)) {
                    session.setMaxInterval(RELIABLE_MAX_INTERVAL);
                }
            } catch (Throwable x) {
                ledger.problem("the security policy failed: " + Stage.stackTrace(x));
            }
            return true;
        }
    }

    /** Every session added is removed exactly once, and never before it was added. */
    private static final class SessionWatch implements BayeuxServer.SessionListener {
        private final Ledger ledger;
        private final Set<String> added = ConcurrentHashMap.newKeySet();
        private final Map<String, EndReason> removed = new ConcurrentHashMap<>();

        SessionWatch(Ledger ledger) {
            this.ledger = ledger;
        }

        @Override
        public void sessionAdded(ServerSession session, Message handshake) {
            if (!added.add(session.getId())) {
                ledger.problem(session + " added twice");
            }
        }

        @Override
        public void sessionRemoved(ServerSession session, EndReason reason) {
            if (!added.contains(session.getId())) {
                ledger.problem(session + " removed (" + reason + ") but never added");
            }
            EndReason before = removed.putIfAbsent(session.getId(), reason);
            if (before != null) {
                ledger.problem(session + " removed twice: " + before + ", then " + reason);
            }
        }

        void check() {
            for (String id : added) {
                if (!removed.containsKey(id)) {
                    ledger.problem("session " + id + " was added and never removed");
                }
            }
        }

        Map<EndReason, Integer> endings() {
            Map<EndReason, Integer> counts = new TreeMap<>();
            removed.values().forEach(reason -> counts.merge(reason, 1, Integer::sum));
            return counts;
        }
    }

    private static void waitFor(Ledger ledger, String what, long seconds, BooleanSupplier condition,
            Supplier<String> otherwise) {
        try {
            Await.until(Duration.ofSeconds(seconds), condition, what);
        } catch (AssertionError notYet) {
            ledger.problem("after " + seconds + " s, still not " + what + ": " + otherwise.get());
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            ledger.problem("interrupted while waiting until " + what);
        }
    }

    private static List<String> nonPersistentChannels(BayeuxServer server) {
        List<String> channels = new ArrayList<>();
        for (ServerChannel channel : server.getChannels()) {
            if (!channel.isPersistent()) {
                channels.add(channel.getId() + (channel.getSubscribers().isEmpty() ? "" : " " + channel.getSubscribers()));
            }
        }
        return channels;
    }

    private static String describe(Iterable<ServerSession> sessions) {
        List<String> described = new ArrayList<>();
        for (ServerSession session : sessions) {
            described.add(session.getId() + " (" + session.getAttribute(StressClient.ROLE) + ", "
                    + session.getConnectionType() + ", queue " + session.getQueueSize() + ")");
        }
        return described.toString();
    }

    private static Map<Object, Long> nonZero(Map<?, Long> counts) {
        Map<Object, Long> nonZero = new TreeMap<>();
        counts.forEach((key, count) -> {
            if (count != 0) {
                nonZero.put(key.toString(), count);
            }
        });
        return nonZero;
    }

    private static java.util.concurrent.ThreadFactory named(String prefix) {
        AtomicInteger next = new AtomicInteger();
        return runnable -> new Thread(runnable, prefix + next.incrementAndGet());
    }

    private static String stacks(String prefix) {
        StringBuilder out = new StringBuilder();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.getName().startsWith(prefix)) {
                out.append(thread.getName()).append('\n');
                for (StackTraceElement frame : stack) {
                    out.append("    at ").append(frame).append('\n');
                }
            }
        });
        return out.toString();
    }
}
