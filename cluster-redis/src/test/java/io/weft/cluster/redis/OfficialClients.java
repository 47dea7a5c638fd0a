package io.weft.cluster.redis;

import jakarta.websocket.ContainerProvider;
import jakarta.websocket.WebSocketContainer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.cometd.client.BayeuxClient;
import org.cometd.client.http.jetty.JettyHttpClientTransport;
import org.cometd.client.transport.ClientTransport;
import org.cometd.client.websocket.jakarta.WebSocketTransport;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.util.component.LifeCycle;

/** Official CometD 9 Java clients of one test, sharing an HTTP client, a WebSocket container and a timer. */
final class OfficialClients implements AutoCloseable {
    private final HttpClient http = new HttpClient();
    private final WebSocketContainer webSocket = ContainerProvider.getWebSocketContainer();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final List<BayeuxClient> clients = new ArrayList<>();
    private final List<HttpClient> browsers = new ArrayList<>();

    OfficialClients() throws Exception {
        http.start();
    }

    /** A new client of {@code url} ({@code http://host:port/cometd}) over websocket only, or long-polling only. */
    BayeuxClient client(String url, boolean websocket) {
        ClientTransport transport = websocket
                ? new WebSocketTransport(new HashMap<>(), scheduler, webSocket)
                : new JettyHttpClientTransport(new HashMap<>(), http);
        BayeuxClient client = new BayeuxClient(url, scheduler, transport);
        clients.add(client);
        return client;
    }

    /**
     * A new long-polling client of {@code url} with an HTTP client of its own, so with cookies of its own, as a browser
     * has them: a balancer's affinity cookie set for it is not another client's.
     */
    BayeuxClient browser(String url) throws Exception {
        HttpClient own = new HttpClient();
        own.start();
        browsers.add(own);
        BayeuxClient client = new BayeuxClient(url, scheduler, new JettyHttpClientTransport(new HashMap<>(), own));
        clients.add(client);
        return client;
    }

    @Override
    public void close() throws Exception {
        for (BayeuxClient client : clients) {
            client.disconnect(1000);
        }
        for (HttpClient own : browsers) {
            own.stop();
        }
        scheduler.shutdownNow();
        LifeCycle.stop(webSocket);
        http.stop();
    }
}
