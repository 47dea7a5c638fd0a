package io.weft.load;

import io.weft.client.BayeuxClient;
import io.weft.client.BayeuxClientBuilder;
import io.weft.client.TrafficListener;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/**
 * The machinery every simulated client shares: one thread pool, one HttpClient (which keeps no cookies: each
 * BayeuxClient keeps its own), one WebSocketClient on top of it, and one scheduler for retries and timeouts. Started
 * and stopped by {@link LoadClient} on its main thread.
 */
final class ClientRuntime implements AutoCloseable {
    private final LoadConfig config;
    private final QueuedThreadPool threads;
    private final HttpClient http;
    private final WebSocketClient webSocket;
    private final ScheduledThreadPoolExecutor scheduler;

    ClientRuntime(LoadConfig config) throws Exception {
        this.config = config;
        threads = new QueuedThreadPool(config.maxThreads(), Math.min(8, config.maxThreads()));
        threads.setName("load-client");
        threads.setDaemon(true);
        http = new HttpClient();
        http.setExecutor(threads);
        http.setHttpCookieStore(new HttpCookieStore.Empty());
        // Every long-polling client parks a request: allow as many connections as there can be clients, twice over.
        http.setMaxConnectionsPerDestination(65_536);
        http.setMaxRequestsQueuedPerDestination(65_536);
        http.setIdleTimeout(60_000);
        if (config.ssl()) {
            SslContextFactory.Client ssl = new SslContextFactory.Client(true);
            http.setSslContextFactory(ssl);
        }
        http.start();
        webSocket = new WebSocketClient(http);
        webSocket.start();
        AtomicInteger count = new AtomicInteger();
        scheduler = new ScheduledThreadPoolExecutor(2, task -> {
            Thread thread = new Thread(task, "load-scheduler-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
    }

    /** A builder for clients of the configured server and transport, reporting their traffic to {@code traffic}. */
    BayeuxClientBuilder builder(TrafficListener traffic) {
        BayeuxClientBuilder builder = BayeuxClient.builder(config.url()).scheduler(scheduler)
                .ackExtension(config.ack());
        if (traffic != null) {
            builder.trafficListener(traffic);
        }
        return LoadConfig.WEBSOCKET.equals(config.transport()) ? builder.webSocket(webSocket)
                : builder.longPolling(http);
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
