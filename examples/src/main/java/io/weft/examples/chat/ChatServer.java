package io.weft.examples.chat;

import io.weft.metrics.micrometer.MetricsFallback;
import io.weft.metrics.micrometer.MetricsHandler;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.ext.AcknowledgedMessagesExtension;
import io.weft.transport.longpoll.LongPollingConnectors;
import io.weft.transport.netty.WeftNetty;
import io.weft.transport.websocket.WeftJetty;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.server.handler.ResourceHandler;
import org.eclipse.jetty.util.resource.Resource;
import org.eclipse.jetty.util.resource.ResourceFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chat demo on embedded Jetty: Bayeux on {@value #BAYEUX_PATH} (websocket upgrades and long-polling on the same
 * path), and the page, its script and Weft's browser client from the class path folder {@code static/}.
 *
 * <pre>
 * Server
 *  └ MetricsHandler                 GET /metrics (Prometheus text), /stats (JSON), /health
 *     └ WebSocketHandler             upgrades on /cometd/* become websocket connections (Jetty's core WebSocket API)
 *        └ Handler.Sequence          everything else
 *           ├ /cometd  LongPollingHandler   long-polling and callback-polling
 *           └ ContextHandlerCollection
 *              ├ (contexts added by the caller: tests serve the official client's files this way)
 *              └ /     ResourceHandler      static/ from the class path: index.html, chat.js, weft.js
 * </pre>
 *
 * <p>Weft's part, from {@code WebSocketHandler} to the long-polling context, is what {@link WeftJetty#mount} makes.
 * With {@link Settings#redis()} set, the node joins a cluster ({@link ChatCluster}): cluster-redis's {@code RedisBroker}
 * carries broadcasts between the nodes, and the chat's {@link Roster} its member lists.
 *
 * <p>Behind a reverse proxy, {@link Settings#withTrustedProxies} names the proxies whose forwarded scheme, host and
 * client address the server uses (the page's {@code https://} origin, the cookie's {@code Secure} flag, each client
 * counted under its own address).
 *
 * <p>With {@link Settings#netty()}, Netty serves the same (transport-netty's {@code WeftNetty}): Bayeux on the same
 * path, the operator's pages ({@code MetricsFallback}) and the page's files ({@link StaticPages}) beside it.
 *
 * <p>Started by {@link #start(Settings)} on the caller's thread; closed by {@link #close()}. Thread-safe.
 */
public final class ChatServer implements AutoCloseable {
    /** Where the Bayeux transports are mounted. */
    public static final String BAYEUX_PATH = "/cometd";

    private final Settings settings;
    private final BayeuxServer bayeux;
    private final ChatRooms rooms;
    /** Embedded Jetty and its connector, or null on Netty. */
    private final Server jetty;
    private final ServerConnector connector;
    /** Netty, once started, or null on Jetty. */
    private volatile WeftNetty netty;
    private final CountDownLatch closed = new CountDownLatch(1);
    /** How long past its window a drain is waited for (its close answering the last held connects). */
    private static final long DRAIN_MARGIN_MILLIS = 5_000;
    private static final Logger LOG = LoggerFactory.getLogger(ChatServer.class);

    /**
     * How to start the demo.
     *
     * @param host the address to listen on ({@code 127.0.0.1}: this machine only; {@code 0.0.0.0}: every interface)
     * @param port the port, 0 for a free one
     * @param webSocket whether the websocket transport is mounted (false: long-polling only, as behind a proxy that
     *     blocks upgrades)
     * @param options the Bayeux server's options
     * @param contexts more contexts to serve beside the demo's
     * @param redis the Redis of a cluster to join ({@code redis://HOST:PORT}, cluster-redis's {@code RedisBroker}),
     *     or null for a single node
     * @param announceEvery on a cluster, how often this node tells the others its member lists again (they forget
     *     them {@value Roster#EXPIRES_AFTER} periods after the last they heard)
     * @param trustedProxies the reverse proxies whose forwarded headers (scheme, host, client address) are used, by IP
     *     address or CIDR range; empty: none, forwarded headers are ignored
     * @param netty whether Netty (transport-netty) serves the demo instead of embedded Jetty: the same page, Bayeux
     *     path and operator pages and trusted proxies, without the caller's contexts or a mount without websocket
     */
    public record Settings(String host, int port, boolean webSocket, ServerOptions options, List<ContextHandler> contexts,
            String redis, Duration announceEvery, List<String> trustedProxies, boolean netty) {
        public Settings {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(options, "options");
            Objects.requireNonNull(announceEvery, "announceEvery");
            contexts = List.copyOf(contexts);
            trustedProxies = List.copyOf(trustedProxies);
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0 to 65535: " + port);
            }
            if (netty && (!contexts.isEmpty() || !webSocket)) {
                throw new IllegalArgumentException("the netty engine serves the demo as it is: no more contexts, "
                        + "always websocket");
            }
        }

        public Settings(String host, int port, boolean webSocket, ServerOptions options, List<ContextHandler> contexts,
                String redis, Duration announceEvery, List<String> trustedProxies) {
            this(host, port, webSocket, options, contexts, redis, announceEvery, trustedProxies, false);
        }

        /** Served by Netty (true) or embedded Jetty (false, the default). */
        public Settings withNetty(boolean value) {
            return new Settings(host, port, webSocket, options, contexts, redis, announceEvery, trustedProxies, value);
        }

        /**
         * The rooms keep their last lines ({@link #HISTORY}), so that a page that lost its session (a reload, a node
         * that went away) gets back what it missed.
         */
        public static final String HISTORY = ChatRooms.CHAT_PREFIX + "*:size=200,ttl=600s";

        /** This machine only, both transports, the rooms' history, a single node, no proxy trusted. */
        public static Settings of(int port) {
            return new Settings("127.0.0.1", port, true, ServerOptions.builder().set("history", HISTORY).build(),
                    List.of(), null, ChatCluster.ANNOUNCE_EVERY, List.of());
        }

        public Settings withHost(String value) {
            return new Settings(value, port, webSocket, options, contexts, redis, announceEvery, trustedProxies, netty);
        }

        public Settings withOptions(ServerOptions value) {
            return new Settings(host, port, webSocket, value, contexts, redis, announceEvery, trustedProxies, netty);
        }

        public Settings withWebSocket(boolean value) {
            return new Settings(host, port, value, options, contexts, redis, announceEvery, trustedProxies, netty);
        }

        public Settings withContext(ContextHandler context) {
            List<ContextHandler> more = new ArrayList<>(contexts);
            more.add(context);
            return new Settings(host, port, webSocket, options, more, redis, announceEvery, trustedProxies, netty);
        }

        /** Joins the cluster that shares this Redis ({@code redis://HOST:PORT}); null: a single node. */
        public Settings withRedis(String value) {
            return new Settings(host, port, webSocket, options, contexts, value, announceEvery, trustedProxies, netty);
        }

        public Settings withAnnounceEvery(Duration value) {
            return new Settings(host, port, webSocket, options, contexts, redis, value, trustedProxies, netty);
        }

        /**
         * Trusts the forwarded headers of the reverse proxies at these IP addresses or CIDR ranges
         * ({@link LongPollingConnectors#trustProxies} on Jetty, {@link WeftNetty.Builder#trustProxies} on Netty);
         * none: no proxy is trusted.
         */
        public Settings withTrustedProxies(List<String> value) {
            return new Settings(host, port, webSocket, options, contexts, redis, announceEvery, value, netty);
        }
    }

    private ChatServer(Settings settings) {
        this.settings = settings;
        if (settings.netty()) {
            jetty = null;
            connector = null;
            bayeux = BayeuxServer.create(settings.options());
            bayeux.addExtension(new AcknowledgedMessagesExtension());
            rooms = ChatCluster.install(bayeux, settings.redis(), settings.announceEvery());
            return;
        }
        jetty = new Server();
        jetty.setStopAtShutdown(false); // the demo's own shutdown hook drains first, then stops Jetty
        // Parked long-polls cost ~7 KB each with these settings, ~110 KB with Jetty's defaults.
        // HTTP/1.1, and h2c for clients that open with HTTP/2's preface: every tab's long-poll on one connection.
        // tag::connector[]
        HttpConfiguration http = LongPollingConnectors.httpConfiguration();
        connector = new ServerConnector(jetty, new HttpConnectionFactory(http), new HTTP2CServerConnectionFactory(http));
        connector.setHost(settings.host());
        connector.setPort(settings.port());
        jetty.addConnector(connector);
        if (!settings.trustedProxies().isEmpty()) { // ["127.0.0.1"] with --trust-proxy=127.0.0.1
            LongPollingConnectors.trustProxies(jetty, settings.trustedProxies()); // once the connectors are added
        }
        // end::connector[]
        bayeux = BayeuxServer.create(settings.options());
        bayeux.addExtension(new AcknowledgedMessagesExtension());
        rooms = ChatCluster.install(bayeux, settings.redis(), settings.announceEvery());
        mount(settings);
    }

    /** Starts the demo; it is listening when this returns. */
    public static ChatServer start(Settings settings) throws Exception {
        ChatServer server = new ChatServer(settings);
        try {
            if (server.jetty != null) {
                server.jetty.start();
            } else {
                // tag::netty[]
                WeftNetty.Builder netty = WeftNetty.on(server.bayeux).host(settings.host()).port(settings.port())
                        .path(BAYEUX_PATH) // websocket, long-polling, callback-polling, eventsource
                        .fallback(new MetricsFallback(server.bayeux, new StaticPages("static/"))); // the rest
                if (!settings.trustedProxies().isEmpty()) { // ["127.0.0.1"] with --trust-proxy=127.0.0.1
                    netty.trustProxies(settings.trustedProxies());
                }
                server.netty = netty.start();
                // end::netty[]
            }
        } catch (Exception x) {
            server.close();
            throw x;
        }
        return server;
    }

    // tag::embedded[]
    private void mount(Settings settings) {
        ContextHandlerCollection contexts = new ContextHandlerCollection(staticFiles());
        settings.contexts().forEach(contexts::addHandler);
        jetty.setHandler(contexts); // the application's own: the page and its scripts
        if (settings.webSocket()) {
            WeftJetty.mount(jetty, bayeux, BAYEUX_PATH); // websocket, long-polling, callback-polling
        } else {
            WeftJetty.mountWithoutWebSocket(jetty, bayeux, BAYEUX_PATH);
        }
        jetty.insertHandler(new MetricsHandler(bayeux)); // GET /metrics, /stats, /health, before everything
    }
    // end::embedded[]

    private ContextHandler staticFiles() {
        Resource base = ResourceFactory.of(jetty).newClassLoaderResource("static/");
        if (base == null) {
            throw new IllegalStateException("static/ is not on the class path");
        }
        ResourceHandler files = new ResourceHandler();
        files.setBaseResource(base);
        files.setWelcomeFiles("index.html");
        files.setDirAllowed(false);
        files.setCacheControl("no-cache"); // the page and its scripts are small; always the current ones
        return new ContextHandler(files, "/");
    }

    /** The port it listens on (the one chosen when started with port 0). */
    public int port() {
        return jetty != null ? connector.getLocalPort() : netty.port();
    }

    /** {@code http://host:port} as a browser on this machine reaches it. */
    public String baseUrl() {
        String host = settings.host();
        if (host == null || host.equals("0.0.0.0") || host.equals("::")) {
            host = "127.0.0.1";
        }
        return "http://" + host + ":" + port();
    }

    public BayeuxServer bayeux() {
        return bayeux;
    }

    public ChatRooms rooms() {
        return rooms;
    }

    /** Blocks until the server stops. */
    public void join() throws InterruptedException {
        closed.await();
    }

    /**
     * Drains the Bayeux server over {@code window} ({@link BayeuxServer#drain}: {@code /health} answers 503 at once,
     * each user is sent to another node at a moment spread over the window), waits for it to close, then stops as
     * {@link #close()} does: what the demo does on SIGTERM. Blocks for about {@code window}.
     */
    public void drainAndClose(Duration window) {
        try {
            bayeux.drain(window).toCompletableFuture().get(window.toMillis() + DRAIN_MARGIN_MILLIS,
                    TimeUnit.MILLISECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException x) {
            LOG.warn("the drain did not end in time; stopping anyway: {}", x.toString());
        } finally {
            close();
        }
    }

    /** Stops the engine (Jetty or Netty), then the chat's roster (on a cluster) and the Bayeux server. */
    @Override
    public void close() {
        try {
            if (jetty != null) {
                jetty.stop();
            } else if (netty != null) {
                netty.close();
            }
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        } catch (Exception x) {
            throw new IllegalStateException("Jetty did not stop cleanly", x);
        } finally {
            rooms.close();
            bayeux.close();
            closed.countDown();
        }
    }
}
