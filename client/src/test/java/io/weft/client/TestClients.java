package io.weft.client;

import io.weft.bayeux.Promise;
import io.weft.server.testing.Await;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/** The HTTP client, WebSocket client and scheduler a test class's Bayeux clients share, as many clients would. */
final class TestClients implements AutoCloseable {
    /** Which transports a client is built with, in order of preference. */
    enum Kind {
        WEBSOCKET, LONG_POLLING, EVENTSOURCE
    }

    private final HttpClient http;
    private final WebSocketClient webSocket;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    TestClients() throws Exception {
        http = httpClient();
        webSocket = new WebSocketClient(http);
        webSocket.start();
    }

    /** A started HttpClient as io.weft.client wants it: no cookie store. */
    static HttpClient httpClient() throws Exception {
        HttpClient http = new HttpClient();
        http.setHttpCookieStore(new HttpCookieStore.Empty());
        http.start();
        return http;
    }

    HttpClient http() {
        return http;
    }

    WebSocketClient webSocket() {
        return webSocket;
    }

    /** A builder for {@code url} with the transport of {@code kind} alone. */
    BayeuxClientBuilder builder(String url, Kind kind) {
        BayeuxClientBuilder builder = BayeuxClient.builder(url).scheduler(scheduler).backoff(100, 500);
        return switch (kind) {
            case WEBSOCKET -> builder.webSocket(webSocket);
            case LONG_POLLING -> builder.longPolling(http);
            case EVENTSOURCE -> builder.eventSource(http);
        };
    }

    @Override
    public void close() throws Exception {
        scheduler.shutdownNow();
        webSocket.stop();
        http.stop();
    }

    /** A promise that completes {@code future}. */
    static <T> Promise<T> into(CompletableFuture<T> future) {
        return Promise.from(future::complete, future::completeExceptionally);
    }

    static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(10, TimeUnit.SECONDS);
    }

    /** Waits for {@code condition} (server-core's {@link Await}); fails after 10 s. */
    static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        Await.until(Duration.ofSeconds(10), condition, what);
    }
}
