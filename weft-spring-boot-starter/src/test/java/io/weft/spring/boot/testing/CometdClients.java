package io.weft.spring.boot.testing;

import java.time.Duration;
import java.util.HashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.cometd.bayeux.Message;
import org.cometd.bayeux.client.ClientSession;
import org.cometd.client.BayeuxClient;
import org.cometd.client.http.jetty.JettyHttpClientTransport;
import org.cometd.client.transport.ClientTransport;
import org.cometd.client.websocket.jakarta.WebSocketTransport;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.ee11.websocket.jakarta.client.JakartaWebSocketClientContainer;

/**
 * The official CometD 9 Java clients of a test class, and what they share: an HTTP client, a Jakarta WebSocket
 * client container (Jetty's, named rather than found by {@code ContainerProvider}, since Tomcat's is on the class
 * path too) and a timer. Shared with spring-boot-example's tests (this module's test-jar).
 */
public final class CometdClients implements AutoCloseable {
    /** How long a test waits for a reply or a message. */
    public static final Duration WAIT = Duration.ofSeconds(5);

    /** The connection types the clients speak, by their Bayeux names. */
    public enum Transport {
        LONG_POLLING("long-polling"),
        WEBSOCKET("websocket");

        public final String bayeuxName;

        Transport(String bayeuxName) {
            this.bayeuxName = bayeuxName;
        }
    }

    private final HttpClient http = new HttpClient();
    private final JakartaWebSocketClientContainer webSocket = new JakartaWebSocketClientContainer();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    public CometdClients() throws Exception {
        http.start();
        webSocket.start();
    }

    public HttpClient http() {
        return http;
    }

    /** A new client of {@code url} (for example {@code http://127.0.0.1:port/cometd}) speaking only {@code transport}. */
    public BayeuxClient client(String url, Transport transport) {
        ClientTransport clientTransport = switch (transport) {
            case LONG_POLLING -> new JettyHttpClientTransport(new HashMap<>(), http);
            case WEBSOCKET -> new WebSocketTransport(new HashMap<>(), scheduler, webSocket);
        };
        return new BayeuxClient(url, scheduler, clientTransport);
    }

    /**
     * A client of {@code url} that has handshaken and connected over {@code transport}.
     *
     * @throws AssertionError if it did not within {@link #WAIT}, or negotiated another transport
     */
    public BayeuxClient connected(String url, Transport transport) {
        BayeuxClient client = client(url, transport);
        CompletableFuture<Message> handshake = new CompletableFuture<>();
        client.handshake(handshake::complete);
        if (!client.waitFor(WAIT.toMillis(), BayeuxClient.State.CONNECTED)) {
            client.disconnect();
            throw new AssertionError("not connected over " + transport.bayeuxName + " to " + url + "; handshake reply: "
                    + handshake.getNow(null));
        }
        if (!transport.bayeuxName.equals(client.getTransport().getName())) {
            client.disconnect();
            throw new AssertionError("connected over " + client.getTransport().getName() + ", not "
                    + transport.bayeuxName);
        }
        return client;
    }

    /** A call that completes with the server's reply. */
    public interface Call {
        void start(ClientSession.MessageListener done);
    }

    /** Starts {@code call} and waits for its reply, at most {@link #WAIT}. */
    public static Message await(Call call) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        call.start(reply::complete);
        return reply.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() throws Exception {
        scheduler.shutdownNow();
        webSocket.stop();
        http.stop();
    }
}
