package io.weft.bench;

import io.weft.client.BayeuxClient;
import io.weft.client.BayeuxClientBuilder;
import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/**
 * Many Bayeux clients (io.weft.client) sharing one HttpClient, one WebSocketClient, one thread pool and one scheduler;
 * client {@code i} talks to {@code urls[i % urls.length]}, so several 127.0.0.x addresses share the ephemeral ports.
 */
final class Clients implements AutoCloseable {
    private final QueuedThreadPool threads;
    private final HttpClient http;
    private final WebSocketClient ws;
    private final ScheduledThreadPoolExecutor scheduler;
    private final String transport;
    private final String[] urls;
    final List<BayeuxClient> all = new ArrayList<>();
    private boolean ack;

    Clients(String transport, String[] urls, int maxThreads) throws Exception {
        this.transport = transport;
        this.urls = urls;
        threads = new QueuedThreadPool(maxThreads, Math.min(8, maxThreads));
        threads.setName("bench-client");
        threads.setDaemon(true);
        http = new HttpClient();
        http.setExecutor(threads);
        http.setHttpCookieStore(new HttpCookieStore.Empty());
        http.setMaxConnectionsPerDestination(65_536);
        http.setMaxRequestsQueuedPerDestination(65_536);
        http.setIdleTimeout(60_000);
        http.setConnectTimeout(30_000);
        http.start();
        ws = new WebSocketClient(http);
        ws.setIdleTimeout(java.time.Duration.ofSeconds(120));
        ws.start();
        AtomicInteger count = new AtomicInteger();
        scheduler = new ScheduledThreadPoolExecutor(2, task -> {
            Thread thread = new Thread(task, "bench-scheduler-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
    }

    /** Clients made from now on ask for acknowledged delivery (the server must have the ack extension). */
    Clients ack(boolean enabled) {
        this.ack = enabled;
        return this;
    }

    BayeuxClient newClient(int index) {
        BayeuxClientBuilder builder = BayeuxClient.builder(urls[index % urls.length]).scheduler(scheduler)
                .maxNetworkDelay(30_000).ackExtension(ack);
        return "websocket".equals(transport) ? builder.webSocket(ws).build() : builder.longPolling(http).build();
    }

    /**
     * Connects clients until there are {@code total}, at most {@code inFlight} handshakes at a time; {@code setup}
     * subscribes each new client (its index, the client) and must call {@code done} (the latch counted down by the
     * promise it is given) when ready. Returns how many got ready before {@code timeoutSeconds}.
     */
    int connect(int total, int inFlight, long timeoutSeconds, Setup setup) throws InterruptedException {
        int from = all.size();
        int wanted = total - from;
        if (wanted <= 0) {
            return total;
        }
        CountDownLatch ready = new CountDownLatch(wanted);
        Semaphore window = new Semaphore(inFlight);
        AtomicInteger failed = new AtomicInteger();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        for (int i = from; i < total; i++) {
            if (!window.tryAcquire(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                break;
            }
            int index = i;
            BayeuxClient client = newClient(index);
            all.add(client);
            Promise<Message> whenReady = Promise.from(reply -> {
                window.release();
                ready.countDown();
            }, failure -> {
                failed.incrementAndGet();
                window.release();
            });
            client.handshake(Promise.from(reply -> {
                if (reply.isSuccessful()) {
                    setup.accept(index, client, whenReady);
                } else {
                    whenReady.fail(new IllegalStateException("handshake refused"));
                }
            }, whenReady::fail));
        }
        long lastPrint = 0;
        while (!ready.await(1, TimeUnit.SECONDS)) {
            long now = System.nanoTime();
            if (now > deadline) {
                break;
            }
            if (now - lastPrint > TimeUnit.SECONDS.toNanos(5)) {
                lastPrint = now;
                System.err.printf("  connecting %d/%d (%d failed)%n", wanted - ready.getCount(), wanted, failed.get());
            }
        }
        return (int) (total - ready.getCount());
    }

    /** Subscribes a client and completes {@code done} on a successful reply. */
    @FunctionalInterface
    interface Setup {
        void accept(int index, BayeuxClient client, Promise<Message> done);
    }

    static Promise<Message> successOnly(Promise<Message> done) {
        return Promise.from(reply -> {
            if (reply != null && reply.isSuccessful()) {
                done.succeed(reply);
            } else {
                done.fail(new IllegalStateException("refused: " + reply));
            }
        }, done::fail);
    }

    static void forEach(List<BayeuxClient> clients, BiConsumer<Integer, BayeuxClient> action) {
        for (int i = 0; i < clients.size(); i++) {
            action.accept(i, clients.get(i));
        }
    }

    /**
     * Drops every client's connections at once, without a disconnect, as if the network went away: the clients and
     * their sessions on the server are abandoned (the server expires them).
     */
    void abandon() {
        scheduler.shutdownNow();
        for (org.eclipse.jetty.util.component.LifeCycle each : List.of(ws, http, threads)) {
            try {
                each.stop();
            } catch (Exception x) {
                System.err.println("stopping " + each + ": " + x);
            }
        }
        all.clear();
    }

    /** Disconnects every client (bounded wait) and stops the shared machinery. */
    @Override
    public void close() {
        CountDownLatch gone = new CountDownLatch(all.size());
        for (BayeuxClient client : all) {
            try {
                client.disconnect(Promise.from(r -> gone.countDown(), f -> gone.countDown()));
            } catch (RuntimeException x) {
                gone.countDown();
            }
        }
        try {
            gone.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
        scheduler.shutdownNow();
        for (org.eclipse.jetty.util.component.LifeCycle each : List.of(ws, http, threads)) {
            try {
                each.stop();
            } catch (Exception x) {
                System.err.println("stopping " + each + ": " + x);
            }
        }
    }
}
