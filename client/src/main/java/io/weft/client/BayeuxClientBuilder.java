package io.weft.client;

import io.weft.bayeux.Message;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Function;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/**
 * Builds {@link BayeuxClient}s; one builder may build any number of clients, each with its own cookies, transports
 * and per-client extensions, all sharing the HttpClient, WebSocketClient and scheduler given here. Not thread-safe;
 * {@link #build()} may be called from any thread once configured.
 *
 * <pre>{@code
 * HttpClient http = new HttpClient();
 * http.setHttpCookieStore(new HttpCookieStore.Empty()); // each BayeuxClient keeps its own cookies
 * http.start();
 * WebSocketClient ws = new WebSocketClient(http);
 * ws.start();
 * BayeuxClient client = BayeuxClient.builder("http://localhost:8080/cometd")
 *         .webSocket(ws)     // preferred
 *         .longPolling(http) // the fallback
 *         .build();
 * }</pre>
 */
public final class BayeuxClientBuilder {
    private static volatile ScheduledExecutorService sharedScheduler;

    private final String url;
    private final List<Function<ClientTransport.Context, ClientTransport>> transports = new ArrayList<>();
    private final List<ClientExtension> extensions = new ArrayList<>();
    private final List<TrafficListener> trafficListeners = new ArrayList<>();
    private ScheduledExecutorService scheduler;
    private boolean ack;
    private boolean recovery = true;
    private final List<RecoveryListener> recoveryListeners = new ArrayList<>();
    private long maxNetworkDelay = 10_000;
    private long backoffIncrement = 1_000;
    private long maxBackoff = 30_000;
    private int maxMessageSize = 8 * 1024 * 1024;

    BayeuxClientBuilder(String url) {
        URI uri = URI.create(Objects.requireNonNull(url, "url"));
        String scheme = uri.getScheme();
        if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme)) {
            throw new IllegalArgumentException("the url must be http:// or https://: " + url);
        }
        this.url = url;
    }

    /**
     * Adds the {@code long-polling} transport over {@code http}, which must be started before a handshake and must keep
     * no cookies of its own ({@link HttpCookieStore.Empty}): a server binds each session to its client's browser cookie,
     * so a shared store would mix up the sessions of the clients that share it. Transports are preferred in the order
     * they are added.
     *
     * @throws IllegalArgumentException if {@code http} has a cookie store
     */
    public BayeuxClientBuilder longPolling(HttpClient http) {
        requireNoCookieStore(http);
        transports.add(context -> new LongPollingTransport(http, context));
        return this;
    }

    private static void requireNoCookieStore(HttpClient http) {
        Objects.requireNonNull(http, "http");
        if (!(http.getHttpCookieStore() instanceof HttpCookieStore.Empty)) {
            throw new IllegalArgumentException("the HttpClient must keep no cookies: call "
                    + "http.setHttpCookieStore(new HttpCookieStore.Empty()); each BayeuxClient keeps its own");
        }
    }

    /**
     * Adds the {@code eventsource} transport over {@code http} (a Server-Sent Events stream down, POSTs up), on the same
     * terms as {@link #longPolling}: {@code http} started before a handshake, with no cookie store of its own. Weft's
     * Jetty handler offers it; servers that do not are not asked for it.
     *
     * @throws IllegalArgumentException if {@code http} has a cookie store
     */
    public BayeuxClientBuilder eventSource(HttpClient http) {
        requireNoCookieStore(http);
        transports.add(context -> new EventSourceTransport(http, context));
        return this;
    }

    /**
     * Adds the {@code websocket} transport over {@code ws}, which must be started before a handshake. If its
     * HttpClient keeps cookies, they are shared by every client using it: build it on an HttpClient with
     * {@link HttpCookieStore.Empty} (as {@code new WebSocketClient(http)} does with the one given to
     * {@link #longPolling}).
     */
    public BayeuxClientBuilder webSocket(WebSocketClient ws) {
        Objects.requireNonNull(ws, "ws");
        transports.add(context -> new WebSocketTransport(ws, context, maxNetworkDelay));
        return this;
    }

    /** Adds a transport of any kind; for tests in this package. */
    BayeuxClientBuilder transport(Function<ClientTransport.Context, ClientTransport> factory) {
        transports.add(Objects.requireNonNull(factory, "factory"));
        return this;
    }

    /**
     * The scheduler for retries and reply timeouts, shared by many clients; its tasks are short. Defaults to one daemon
     * thread shared by every client built without one.
     */
    public BayeuxClientBuilder scheduler(ScheduledExecutorService scheduler) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        return this;
    }

    /** Adds an extension, shared by every client built; it sees each one's messages (see {@link ClientExtension}). */
    public BayeuxClientBuilder extension(ClientExtension extension) {
        extensions.add(Objects.requireNonNull(extension, "extension"));
        return this;
    }

    /** Asks the server for acknowledged delivery (the {@code ack} extension); each client gets its own state. */
    public BayeuxClientBuilder ackExtension(boolean enabled) {
        this.ack = enabled;
        return this;
    }

    /**
     * Whether clients recover on channels that keep history (on by default): each keeps its position in every such
     * channel, asks with every subscribe (those made again after a new handshake included) for what it missed, and
     * never delivers a message twice. See {@link Recovery}; a server without history is not affected.
     */
    public BayeuxClientBuilder recovery(boolean enabled) {
        this.recovery = enabled;
        return this;
    }

    /** Adds a listener told the outcome of each recovery (turning recovery on); shared by every client built. */
    public BayeuxClientBuilder recoveryListener(RecoveryListener listener) {
        recoveryListeners.add(Objects.requireNonNull(listener, "listener"));
        this.recovery = true;
        return this;
    }

    public BayeuxClientBuilder trafficListener(TrafficListener listener) {
        trafficListeners.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /**
     * How long a reply may take on top of what the server may legitimately hold it (default 10000 ms). A request
     * without a reply by then is failed; over WebSocket the connection is then closed and opened again.
     */
    public BayeuxClientBuilder maxNetworkDelay(long millis) {
        this.maxNetworkDelay = requirePositive(millis, "maxNetworkDelay");
        return this;
    }

    /** The delay added for each consecutive failure before retrying (default 1000 ms), and its cap (default 30000). */
    public BayeuxClientBuilder backoff(long incrementMillis, long maxMillis) {
        this.backoffIncrement = requirePositive(incrementMillis, "backoff increment");
        this.maxBackoff = requirePositive(maxMillis, "max backoff");
        return this;
    }

    /** The largest HTTP response body accepted, in bytes (default 8 MiB). */
    public BayeuxClientBuilder maxMessageSize(int bytes) {
        this.maxMessageSize = (int) requirePositive(bytes, "maxMessageSize");
        return this;
    }

    /** A new client, not yet handshaken. @throws IllegalStateException if no transport was added */
    public BayeuxClient build() {
        if (transports.isEmpty()) {
            throw new IllegalStateException("add a transport: longPolling(HttpClient) and/or webSocket(WebSocketClient)");
        }
        CookieJar cookies = new CookieJar();
        List<ClientExtension> clientExtensions = new ArrayList<>(extensions);
        if (ack) {
            clientExtensions.add(new AckExtension());
        }
        if (recovery) {
            // last: it sees deliveries as the others leave them, and drops what the application already had
            clientExtensions.add(new RecoveryExtension(recoveryListeners));
        }
        ClientTransport.Receiver[] receiver = new ClientTransport.Receiver[1];
        ClientTransport.Receiver forward = new ForwardingReceiver(receiver);
        ClientTransport.Context context = new ClientTransport.Context(url, cookies, forward, maxMessageSize);
        List<ClientTransport> built = new ArrayList<>();
        for (Function<ClientTransport.Context, ClientTransport> factory : transports) {
            built.add(factory.apply(context));
        }
        BayeuxClient client = new BayeuxClient(this, cookies, built, clientExtensions);
        receiver[0] = client.receiver();
        return client;
    }

    String url() {
        return url;
    }

    ScheduledExecutorService scheduler() {
        return scheduler != null ? scheduler : sharedScheduler();
    }

    long maxNetworkDelay() {
        return maxNetworkDelay;
    }

    long backoffIncrement() {
        return backoffIncrement;
    }

    long maxBackoff() {
        return maxBackoff;
    }

    List<TrafficListener> trafficListeners() {
        return List.copyOf(trafficListeners);
    }

    private static ScheduledExecutorService sharedScheduler() {
        ScheduledExecutorService shared = sharedScheduler;
        if (shared == null) {
            synchronized (BayeuxClientBuilder.class) {
                shared = sharedScheduler;
                if (shared == null) {
                    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
                        Thread thread = new Thread(task, "weft-client-scheduler");
                        thread.setDaemon(true);
                        return thread;
                    });
                    executor.setRemoveOnCancelPolicy(true);
                    sharedScheduler = shared = executor;
                }
            }
        }
        return shared;
    }

    private static long requirePositive(long value, String name) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
        return value;
    }

    /** Lets transports be built before the client they report to. */
    private record ForwardingReceiver(ClientTransport.Receiver[] target) implements ClientTransport.Receiver {
        @Override
        public void onMessages(ClientTransport transport, List<Message.Mutable> messages, List<Message.Mutable> request) {
            target[0].onMessages(transport, messages, request);
        }

        @Override
        public void onFailure(ClientTransport transport, List<Message.Mutable> batch, Throwable cause) {
            target[0].onFailure(transport, batch, cause);
        }

        @Override
        public void onClosed(ClientTransport transport, Throwable cause) {
            target[0].onClosed(transport, cause);
        }
    }
}
