package io.weft.load;

import io.weft.client.BayeuxClient;
import io.weft.client.BayeuxClientBuilder;
import io.weft.client.TrafficListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/**
 * The machinery every simulated client shares: one thread pool, one HttpClient (which keeps no cookies: each
 * BayeuxClient keeps its own), one WebSocketClient on top of it, and one scheduler for retries and timeouts. The
 * timeouts are generous, as thousands of clients connecting at once from one machine need: 30 s to connect, 30 s of
 * network delay per request, 60 s (HTTP) and 120 s (WebSocket) idle. Started and stopped on its owner's thread
 * ({@link LoadSession}, the bench commands).
 */
public final class ClientRuntime implements AutoCloseable {
    private final String transport;
    private final boolean ack;
    private final QueuedThreadPool threads;
    private final HttpClient http;
    private final WebSocketClient webSocket;
    private final ScheduledThreadPoolExecutor scheduler;

    /**
     * Starts the shared machinery.
     *
     * @param transport {@link LoadConfig#WEBSOCKET}, {@link LoadConfig#LONG_POLLING} or {@link LoadConfig#EVENTSOURCE}:
     *     what every client uses
     * @param maxThreads the pool all clients share (at least 8)
     * @param ssl whether clients may use https / wss (any certificate is trusted: a load test's own server)
     * @param ack whether clients ask for the acknowledged-messages extension
     */
    public ClientRuntime(String transport, int maxThreads, boolean ssl, boolean ack) throws Exception {
        LoadConfig.requireTransport(transport);
        LoadConfig.requireAtLeast("max threads", maxThreads, 8);
        this.transport = transport;
        this.ack = ack;
        threads = new QueuedThreadPool(maxThreads, Math.min(8, maxThreads));
        threads.setName("load-client");
        threads.setDaemon(true);
        http = new HttpClient();
        http.setExecutor(threads);
        http.setHttpCookieStore(new HttpCookieStore.Empty());
        // Every long-polling client parks a request: allow as many connections as there can be clients, twice over.
        http.setMaxConnectionsPerDestination(65_536);
        http.setMaxRequestsQueuedPerDestination(65_536);
        http.setIdleTimeout(60_000);
        http.setConnectTimeout(30_000);
        if (ssl) {
            http.setSslContextFactory(new SslContextFactory.Client(true));
        }
        http.start();
        webSocket = new WebSocketClient(http);
        webSocket.setIdleTimeout(Duration.ofSeconds(120));
        webSocket.start();
        AtomicInteger count = new AtomicInteger();
        scheduler = new ScheduledThreadPoolExecutor(2, task -> {
            Thread thread = new Thread(task, "load-scheduler-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
    }

    /** The runtime a load-client session configured. */
    static ClientRuntime of(LoadConfig config) throws Exception {
        return new ClientRuntime(config.transport(), config.maxThreads(), config.ssl(), config.ack());
    }

    /** A builder for a client of the server at {@code url}, reporting its traffic to {@code traffic} (or null). */
    public BayeuxClientBuilder builder(String url, TrafficListener traffic) {
        BayeuxClientBuilder builder = BayeuxClient.builder(url).scheduler(scheduler).maxNetworkDelay(30_000)
                .ackExtension(ack);
        if (traffic != null) {
            builder.trafficListener(traffic);
        }
        return switch (transport) {
            case LoadConfig.WEBSOCKET -> builder.webSocket(webSocket);
            case LoadConfig.EVENTSOURCE -> builder.eventSource(http);
            default -> builder.longPolling(http);
        };
    }

    /** The HTTP client all clients share. */
    HttpClient http() {
        return http;
    }

    /** How many of the pool's threads are busy now, and the most there have been. */
    String threadUse() {
        return threads.getBusyThreads() + " busy of " + threads.getThreads() + " (max " + threads.getMaxThreads() + ")";
    }

    /** Stops everything; what fails to stop is reported on {@code System.err}, not thrown. */
    @Override
    public void close() {
        scheduler.shutdownNow();
        for (org.eclipse.jetty.util.component.LifeCycle each : List.of(webSocket, http, threads)) {
            try {
                each.stop();
            } catch (Exception x) {
                System.err.println("Stopping " + each + " failed: " + x);
            }
        }
    }
}
