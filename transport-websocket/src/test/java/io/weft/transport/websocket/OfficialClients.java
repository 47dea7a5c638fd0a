package io.weft.transport.websocket;

import jakarta.websocket.ContainerProvider;
import jakarta.websocket.WebSocketContainer;
import java.util.HashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.cometd.client.BayeuxClient;
import org.cometd.client.http.jetty.JettyHttpClientTransport;
import org.cometd.client.transport.ClientTransport;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.util.component.LifeCycle;

/** What the official CometD Java clients of a test class share: an HTTP client, a WebSocket container, a timer. */
final class OfficialClients implements AutoCloseable {
    private final HttpClient http = new HttpClient();
    private final WebSocketContainer webSocket = ContainerProvider.getWebSocketContainer();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    OfficialClients() throws Exception {
        http.start();
    }

    /** A new official client of {@code server} speaking only {@code transport}. */
    BayeuxClient client(BayeuxHost server, TransportKind transport) {
        ClientTransport clientTransport = switch (transport) {
            case WEBSOCKET -> new org.cometd.client.websocket.jakarta.WebSocketTransport(new HashMap<>(), scheduler, webSocket);
            case LONG_POLLING -> new JettyHttpClientTransport(new HashMap<>(), http);
            case CALLBACK_POLLING -> throw new IllegalArgumentException("the official Java client has no JSONP");
            case EVENTSOURCE -> throw new IllegalArgumentException("the official Java client has no eventsource");
        };
        return new BayeuxClient(server.httpUri().toString(), scheduler, clientTransport);
    }

    @Override
    public void close() throws Exception {
        scheduler.shutdownNow();
        LifeCycle.stop(webSocket);
        http.stop();
    }
}
