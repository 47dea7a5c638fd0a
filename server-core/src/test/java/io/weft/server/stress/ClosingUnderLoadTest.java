package io.weft.server.stress;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import io.weft.bayeux.MessageDecodeException;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.time.ExecutorScheduler;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.Await;
import io.weft.server.testing.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link BayeuxServer#close()} while clients handshake, connect and publish on both transports, and go on doing so
 * for a while after: every request made before or after is answered within a second, held connects with reconnect
 * handshake, handshakes after the close are refused, and the closed server holds no session and no timer.
 */
@Tag("stress")
class ClosingUnderLoadTest {
    private static final ServerOptions OPTIONS = ServerOptions.builder().timeout(200).maxInterval(300)
            .sweepPeriod(50).build();
    private static final int CLIENTS = 8;

    /** What one client saw: every request it made, and when, relative to the close. */
    private record Asked(String what, boolean afterClose, CompletableFuture<List<Map<String, Object>>> answer) {
    }

    @Test
    void closingWhileClientsWorkAnswersEveryoneAndLeavesNothing() throws Exception {
        CountingScheduler scheduler = new CountingScheduler(new ExecutorScheduler("closing-scheduler"));
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        Queue<Asked> asked = new ConcurrentLinkedQueue<>();
        BayeuxServer server = BayeuxServer.create(OPTIONS, scheduler);
        InMemoryTransport polling = InMemoryTransport.polling(server);
        InMemoryTransport websocket = InMemoryTransport.websocket(server);
        Phase phase = new Phase();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        try (WarningLog warnings = WarningLog.install()) {
            for (int i = 0; i < CLIENTS; i++) {
                String browser = "closing-" + i;
                boolean socket = i % 2 == 0;
                pool.submit(() -> {
                    try {
                        while (!phase.over()) {
                            try (Way way = socket ? new SocketWay(websocket, browser) : new PollingWay(polling, browser)) {
                                session(way, phase, asked);
                            }
                        }
                    } catch (Throwable x) {
                        problems.add(browser + " failed: " + Stage.stackTrace(x));
                    }
                });
            }
            phase.sleep(1_500);
            server.close();
            // Only what is sent once close() has returned must find the server closed.
            phase.closed = true;
            phase.sleep(500);
            phase.over = true;
            pool.shutdown();
            if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
                problems.add("clients still running 30 s after the end");
            }

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            for (Asked request : asked) {
                List<Map<String, Object>> answer = null;
                try {
                    answer = request.answer().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (Exception x) {
                    problems.add("no answer within a second of the end to " + request.what()
                            + (request.afterClose() ? " (sent after close)" : " (sent before close)"));
                }
                if (answer != null && request.afterClose()) {
                    checkAfterClose(request, answer, problems);
                }
            }
            waitFor(() -> server.getSessions().isEmpty(), 2);
            if (!server.getSessions().isEmpty()) {
                problems.add(server.getSessions().size() + " sessions left on the closed server");
            }
            waitFor(() -> scheduler.waiting().isEmpty(), 2);
            if (!scheduler.waiting().isEmpty()) {
                problems.add("timers left on the closed server: " + scheduler.waiting());
            }
            scheduler.failures().forEach(x -> problems.add("a timer task threw: " + Stage.stackTrace(x)));
            warnings.lines().forEach(line -> problems.add("logged: " + line));
        } finally {
            pool.shutdownNow();
            scheduler.close();
        }
        List<String> all = new ArrayList<>(problems);
        assertTrue(all.isEmpty(), all.size() + " problems (" + asked.size() + " requests), by kind " + kinds(all)
                + ", the first ones:\n  " + String.join("\n  ", all.subList(0, Math.min(20, all.size()))));
    }

    /** How many problems of each kind: their text up to the first detail. */
    private static Map<String, Integer> kinds(List<String> problems) {
        Map<String, Integer> kinds = new java.util.TreeMap<>();
        for (String problem : problems) {
            String kind = problem.replaceAll("[{\\[(].*|[0-9]+", "").replaceAll("\\s+", " ").trim();
            kinds.merge(kind, 1, Integer::sum);
        }
        return kinds;
    }

    /**
     * After close: a handshake is refused with 503::server_closing; a held connect and any other request of a session
     * are not successful, or end with advice reconnect handshake.
     */
    private static void checkAfterClose(Asked request, List<Map<String, Object>> answer, Queue<String> problems) {
        for (Map<String, Object> message : answer) {
            Object channel = message.get(Message.CHANNEL);
            boolean successful = Boolean.TRUE.equals(message.get(Message.SUCCESSFUL));
            Object reconnect = message.get(Message.ADVICE) instanceof Map<?, ?> advice ? advice.get("reconnect") : null;
            if ("/meta/handshake".equals(channel) && (successful
                    || !"503::server_closing".equals(message.get(Message.ERROR)))) {
                problems.add("a handshake after close was answered " + message);
            } else if ("/meta/connect".equals(channel) && successful && !"handshake".equals(reconnect)) {
                problems.add("a /meta/connect after close was answered " + message + " (not reconnect handshake)");
            }
        }
    }

    // ---- one client session: handshake, subscribe, then connect and publish until the phase ends ----

    /** A client's way to the server: requests answered by futures. */
    private interface Way extends AutoCloseable {
        CompletableFuture<List<Map<String, Object>>> send(Map<String, Object> message);

        @Override
        default void close() {
        }
    }

    private static void session(Way way, Phase phase, Queue<Asked> asked) throws Exception {
        Map<String, Object> handshake = message("/meta/handshake", null);
        handshake.put(Message.SUPPORTED_CONNECTION_TYPES, List.of("long-polling", "websocket"));
        handshake.put(Message.VERSION, "1.0");
        List<Map<String, Object>> shook = ask(way, handshake, phase, asked).get(1, TimeUnit.SECONDS);
        String clientId = (String) shook.get(0).get(Message.CLIENT_ID);
        if (clientId == null) {
            phase.sleep(20);
            return;
        }
        Map<String, Object> subscribe = message("/meta/subscribe", clientId);
        subscribe.put(Message.SUBSCRIPTION, "/closing");
        ask(way, subscribe, phase, asked).get(1, TimeUnit.SECONDS);
        CompletableFuture<List<Map<String, Object>>> held = null;
        while (!phase.over()) {
            if (held == null || held.isDone()) {
                if (held != null && ended(held.join())) {
                    return;
                }
                Map<String, Object> connect = message("/meta/connect", clientId);
                connect.put(Message.CONNECTION_TYPE, way instanceof SocketWay ? "websocket" : "long-polling");
                held = ask(way, connect, phase, asked);
            }
            Map<String, Object> publish = message("/closing", clientId);
            publish.put(Message.DATA, "x");
            if (ended(ask(way, publish, phase, asked).get(1, TimeUnit.SECONDS))) {
                return;
            }
            phase.sleep(2);
        }
    }

    private static CompletableFuture<List<Map<String, Object>>> ask(Way way, Map<String, Object> message, Phase phase,
            Queue<Asked> asked) {
        boolean afterClose = phase.closed;
        CompletableFuture<List<Map<String, Object>>> answer = way.send(message);
        asked.add(new Asked(message.get(Message.CHANNEL) + " " + message.get(Message.ID), afterClose, answer));
        return answer;
    }

    private static boolean ended(List<Map<String, Object>> answer) {
        return answer.stream().anyMatch(m -> !Boolean.TRUE.equals(m.get(Message.SUCCESSFUL))
                || (m.get(Message.ADVICE) instanceof Map<?, ?> advice && !"retry".equals(advice.get("reconnect"))));
    }

    private static int ids;

    private static synchronized Map<String, Object> message(String channel, String clientId) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put(Message.CHANNEL, channel);
        if (clientId != null) {
            message.put(Message.CLIENT_ID, clientId);
        }
        message.put(Message.ID, String.valueOf(++ids));
        return message;
    }

    private static final class PollingWay implements Way {
        private final InMemoryTransport transport;
        private final String browser;

        PollingWay(InMemoryTransport transport, String browser) {
            this.transport = transport;
            this.browser = browser;
        }

        @Override
        public CompletableFuture<List<Map<String, Object>>> send(Map<String, Object> message) {
            return transport.request(browser, Json.write(List.of(message))).thenApply(Json::array);
        }
    }

    /** One socket, and a thread that reads its frames: each reply completes the request with its id. */
    private static final class SocketWay implements Way {
        private final InMemoryTransport.Socket socket;
        private final Map<Object, CompletableFuture<List<Map<String, Object>>>> waiting = new ConcurrentHashMap<>();
        private volatile boolean closed;

        SocketWay(InMemoryTransport transport, String browser) {
            this.socket = transport.open(browser);
            Thread reader = new Thread(this::read, "closing-reader-" + browser);
            reader.setDaemon(true);
            reader.start();
        }

        @Override
        public CompletableFuture<List<Map<String, Object>>> send(Map<String, Object> message) {
            CompletableFuture<List<Map<String, Object>>> answer = new CompletableFuture<>();
            waiting.put(message.get(Message.ID), answer);
            try {
                socket.send(Json.write(List.of(message)));
            } catch (MessageDecodeException x) {
                answer.completeExceptionally(x);
            }
            return answer;
        }

        private void read() {
            // Reads on for a while after the session is done with it: held connects are answered late, if at all.
            long stopAt = Long.MAX_VALUE;
            while (System.nanoTime() < stopAt) {
                if (closed && stopAt == Long.MAX_VALUE) {
                    stopAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                }
                String frame;
                try {
                    frame = socket.frames().poll(10, TimeUnit.MILLISECONDS);
                } catch (InterruptedException x) {
                    return;
                }
                if (frame != null) {
                    for (Map<String, Object> reply : Json.array(frame)) {
                        Object id = reply.get(Message.ID);
                        // Deliveries carry no id: only replies answer a request.
                        CompletableFuture<List<Map<String, Object>>> waiter = id == null ? null : waiting.remove(id);
                        if (waiter != null) {
                            waiter.complete(List.of(reply));
                        }
                    }
                }
            }
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** The test's phases: working, closed (clients go on), over. */
    private static final class Phase {
        volatile boolean closed;
        volatile boolean over;

        boolean over() {
            return over;
        }

        void sleep(long millis) {
            StressClient.sleep(millis);
        }
    }

    /** Waits up to {@code seconds} for {@code condition}; the caller records what is left if it does not hold. */
    private static void waitFor(BooleanSupplier condition, long seconds) {
        try {
            Await.until(Duration.ofSeconds(seconds), condition, "the closed server is clean");
        } catch (AssertionError notYet) {
            // recorded by the caller, with what is left
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
    }
}
