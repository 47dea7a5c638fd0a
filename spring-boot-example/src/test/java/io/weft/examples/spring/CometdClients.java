package io.weft.examples.spring;

import java.util.HashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.cometd.client.BayeuxClient;
import org.cometd.client.http.jetty.JettyHttpClientTransport;
import org.cometd.client.transport.ClientTransport;
import org.cometd.client.websocket.jakarta.WebSocketTransport;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.ee11.websocket.jakarta.client.JakartaWebSocketClientContainer;

/**
 * The official CometD 9 Java clients of a test class, and what they share: an HTTP client, a Jakarta WebSocket
 * client container (Jetty's, named rather than found by {@code ContainerProvider}, since Tomcat's is on the class
 * path too) and a timer.
 */
final class CometdClients implements AutoCloseable {
    /** The connection types the clients speak, by their Bayeux names. */
    enum Transport {
        LONG_POLLING("long-polling"),
        WEBSOCKET("websocket");

        final String bayeuxName;

        Transport(String bayeuxName) {
            this.bayeuxName = bayeuxName;
        }
    }

    private final HttpClient http = new HttpClient();
    private final JakartaWebSocketClientContainer webSocket = new JakartaWebSocketClientContainer();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    CometdClients() throws Exception {
        http.start();
        webSocket.start();
    }

    HttpClient http() {
        return http;
    }

    /** A new client of {@code url} (for example {@code http://127.0.0.1:port/cometd}) speaking only {@code transport}. */
    BayeuxClient client(String url, Transport transport) {
        ClientTransport clientTransport = switch (transport) {
            case LONG_POLLING -> new JettyHttpClientTransport(new HashMap<>(), http);
            case WEBSOCKET -> new WebSocketTransport(new HashMap<>(), scheduler, webSocket);
        };
        return new BayeuxClient(url, scheduler, clientTransport);
    }

    @Override
    public void close() throws Exception {
        scheduler.shutdownNow();
        webSocket.stop();
        http.stop();
    }
}
