package io.weft.load.bench;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.client.BayeuxClient;
import io.weft.client.TrafficListener;
import io.weft.load.ClientRuntime;
import io.weft.load.ServerProbe;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Many {@code io.weft.client} clients on one {@link ClientRuntime}, client {@code i} talking to the {@code i}-th URL
 * (modulo their number): connected with at most {@code inFlight} handshakes under way, each then set up (subscribed,
 * or registered) by the command. Connected and closed on the command's thread; set-ups run on client threads.
 */
final class Cohort implements AutoCloseable {
    /** Sets up a handshaken client and completes {@code ready} when it is ready (or fails it). */
    @FunctionalInterface
    interface Setup {
        void accept(int index, BayeuxClient client, Promise<Message> ready);
    }

    private final ClientRuntime runtime;
    private final List<URI> urls;
    private final int inFlight;
    private final long connectSeconds;
    private final List<BayeuxClient> clients = new ArrayList<>();
    /** Batches the clients wrote (HTTP requests or websocket frames) and read (responses or frames). */
    private final LongAdder sent = new LongAdder();
    private final LongAdder received = new LongAdder();
    private final TrafficListener traffic = new TrafficListener() {
        @Override
        public void onSend(BayeuxClient client, List<? extends Message> batch) {
            sent.increment();
        }

        @Override
        public void onReceive(BayeuxClient client, List<? extends Message> batch) {
            received.increment();
        }
    };

    /** Clients of {@code runtime}; {@link #close()} stops it. */
    Cohort(ClientRuntime runtime, List<URI> urls, int inFlight, long connectSeconds) {
        this.runtime = runtime;
        this.urls = List.copyOf(urls);
        this.inFlight = inFlight;
        this.connectSeconds = connectSeconds;
    }

    /**
     * Connects clients until there are {@code total}, setting each one up. Returns how many were ready within
     * {@code connectSeconds}; progress goes to {@code System.err} every 5 s.
     */
    int connect(int total, Setup setup) throws InterruptedException {
        int from = clients.size();
        int wanted = total - from;
        if (wanted <= 0) {
            return total;
        }
        CountDownLatch ready = new CountDownLatch(wanted);
        Semaphore window = new Semaphore(inFlight);
        AtomicInteger failed = new AtomicInteger();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(connectSeconds);
        for (int i = from; i < total; i++) {
            if (!window.tryAcquire(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                break;
            }
            int index = i;
            BayeuxClient client = add();
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
                    whenReady.fail(new IllegalStateException("handshake refused: " + reply));
                }
            }, whenReady::fail));
        }
        long lastPrint = System.nanoTime();
        while (!ready.await(1, TimeUnit.SECONDS) && System.nanoTime() < deadline) {
            if (System.nanoTime() - lastPrint > TimeUnit.SECONDS.toNanos(5)) {
                lastPrint = System.nanoTime();
                System.err.printf("  connecting %d/%d (%d failed)%n", wanted - ready.getCount(), wanted, failed.get());
            }
        }
        return (int) (total - ready.getCount());
    }

    /** Completes {@code ready} on a successful reply, fails it on a refusal or a failure. */
    static Promise<Message> successOnly(Promise<Message> ready) {
        return Promise.from(reply -> {
            if (reply != null && reply.isSuccessful()) {
                ready.succeed(reply);
            } else {
                ready.fail(new IllegalStateException("refused: " + reply));
            }
        }, ready::fail);
    }

    /** A new client of the cohort, the next index's, not handshaken: the caller drives it. */
    BayeuxClient add() {
        BayeuxClient client = runtime.builder(urls.get(clients.size() % urls.size()).toString(), traffic).build();
        clients.add(client);
        return client;
    }

    /** Batches written by all the clients so far: HTTP requests, or websocket frames. */
    long batchesSent() {
        return sent.sum();
    }

    /** Batches read by all the clients so far: HTTP responses, or websocket frames. */
    long batchesReceived() {
        return received.sum();
    }

    BayeuxClient get(int index) {
        return clients.get(index);
    }

    int size() {
        return clients.size();
    }

    /** One more client, outside the cohort, that reads the load server's report of a run (see {@link ServerProbe}). */
    ServerProbe probe() {
        return new ServerProbe(runtime, urls.get(0).toString());
    }

    /**
     * Drops every client's connections at once, without a disconnect, as if the network went away: the clients and
     * their sessions on the server are abandoned (the server expires them). The cohort is closed.
     */
    void abandon() {
        clients.clear();
        runtime.close();
    }

    /** Disconnects every client (waiting 10 s at most for the replies) and stops the runtime. */
    @Override
    public void close() {
        CountDownLatch gone = new CountDownLatch(clients.size());
        for (BayeuxClient client : clients) {
            try {
                client.disconnect(Promise.from(reply -> gone.countDown(), failure -> gone.countDown()));
            } catch (RuntimeException x) {
                gone.countDown();
            }
        }
        try {
            gone.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        } finally {
            runtime.close();
        }
    }
}
