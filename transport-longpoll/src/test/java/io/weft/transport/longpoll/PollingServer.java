package io.weft.transport.longpoll;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.common.PollingTransport;
import java.net.URI;
import java.util.function.IntSupplier;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.StatisticsHandler;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/** An embedded Jetty on a free port of 127.0.0.1 with a Bayeux server mounted at {@code /cometd} by one adapter. */
final class PollingServer implements AutoCloseable {
    /** The two ways to mount the polling transports; tests run against both. */
    enum Mount {
        HANDLER, SERVLET
    }

    /**
     * How the exchange's deadlines and the connector are set up beyond the usual: the deadlines for a request body
     * and for the grace past a hold (null: the transport's own), TLS (null: plain HTTP), and HTTP/2 beside HTTP/1.1
     * (h2c without TLS, h2 by ALPN with it).
     */
    record Setup(Long bodyMillis, Long graceMillis, SslContextFactory.Server tls, boolean http2) {
        static final Setup USUAL = new Setup(null, null, null, false);
        /** HTTP/2 over cleartext (prior knowledge) beside HTTP/1.1 on the same connector. */
        static final Setup H2C = new Setup(null, null, null, true);

        Setup(Long bodyMillis, Long graceMillis, SslContextFactory.Server tls) {
            this(bodyMillis, graceMillis, tls, false);
        }
    }

    private final Server jetty;
    private final ServerConnector connector;
    private final boolean secure;
    private final StatisticsHandler statistics;
    private final BayeuxServer bayeux;
    private final IntSupplier waiting;

    private PollingServer(Server jetty, ServerConnector connector, StatisticsHandler statistics, BayeuxServer bayeux,
            IntSupplier waiting, boolean secure) {
        this.secure = secure;
        this.jetty = jetty;
        this.connector = connector;
        this.statistics = statistics;
        this.bayeux = bayeux;
        this.waiting = waiting;
    }

    static PollingServer start(Mount mount, ServerOptions options) throws Exception {
        return start(mount, options, 30_000);
    }

    static PollingServer start(Mount mount, ServerOptions options, long idleTimeoutMillis) throws Exception {
        return start(mount, options, idleTimeoutMillis, new QueuedThreadPool());
    }

    static PollingServer start(Mount mount, ServerOptions options, long idleTimeoutMillis, QueuedThreadPool threads)
            throws Exception {
        return start(mount, options, idleTimeoutMillis, threads, httpConfiguration(), true);
    }

    /**
     * @param http the connector's HTTP configuration
     * @param statistics whether to count requests ({@link #requestsActive()}); benchmarks leave it out
     */
    static PollingServer start(Mount mount, ServerOptions options, long idleTimeoutMillis, QueuedThreadPool threads,
            HttpConfiguration http, boolean statistics) throws Exception {
        return start(mount, options, idleTimeoutMillis, threads, http, statistics, Setup.USUAL);
    }

    static PollingServer start(Mount mount, ServerOptions options, Setup setup) throws Exception {
        return start(mount, options, 30_000, new QueuedThreadPool(), httpConfiguration(), true, setup);
    }

    private static PollingServer start(Mount mount, ServerOptions options, long idleTimeoutMillis,
            QueuedThreadPool threads, HttpConfiguration http, boolean statistics, Setup setup) throws Exception {
        BayeuxServer bayeux = BayeuxServer.create(options);
        Server jetty = new Server(threads);
        HttpConnectionFactory plain = new HttpConnectionFactory(http);
        ServerConnector connector;
        if (setup.tls() == null) {
            connector = setup.http2() ? new ServerConnector(jetty, 1, 1, plain, new HTTP2CServerConnectionFactory(http))
                    : new ServerConnector(jetty, 1, 1, plain);
        } else if (setup.http2()) {
            // h2 or HTTP/1.1, as the client's ALPN asks
            ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory("h2", plain.getProtocol());
            alpn.setDefaultProtocol(plain.getProtocol());
            connector = new ServerConnector(jetty, 1, 1, new SslConnectionFactory(setup.tls(), alpn.getProtocol()), alpn,
                    new HTTP2ServerConnectionFactory(http), plain);
        } else {
            connector = new ServerConnector(jetty, 1, 1, new SslConnectionFactory(setup.tls(), plain.getProtocol()),
                    plain);
        }
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        connector.setIdleTimeout(idleTimeoutMillis);
        jetty.addConnector(connector);
        IntSupplier[] waiting = new IntSupplier[1];
        Handler handler = mount(mount, bayeux, waiting, setup);
        StatisticsHandler counter = statistics ? new StatisticsHandler(handler) : null;
        jetty.setHandler(statistics ? counter : handler);
        try {
            jetty.start();
        } catch (Exception x) {
            bayeux.close();
            throw x;
        }
        return new PollingServer(jetty, connector, counter, bayeux, waiting[0], setup.tls() != null);
    }

    /** What Weft recommends for connectors that serve long-polling. */
    static HttpConfiguration httpConfiguration() {
        return LongPollingConnectors.httpConfiguration();
    }

    private static Handler mount(Mount mount, BayeuxServer bayeux, IntSupplier[] waiting, Setup setup) {
        long body = setup.bodyMillis() == null ? PollingTransport.BODY_MILLIS : setup.bodyMillis();
        long grace = setup.graceMillis() == null ? PollingTransport.IDLE_GRACE_MILLIS : setup.graceMillis();
        if (mount == Mount.HANDLER) {
            LongPollingHandler polling = new LongPollingHandler(bayeux, body, grace);
            waiting[0] = polling::waitingRequests;
            ContextHandler context = new ContextHandler(polling, "/cometd");
            // Clients post to /cometd itself, not only below it: no redirect to /cometd/.
            context.setAllowNullPathInContext(true);
            return context;
        }
        ServletContextHandler context = new ServletContextHandler("/");
        LongPollingServlet servlet = new LongPollingServlet(bayeux, body, grace);
        waiting[0] = servlet::waitingRequests;
        ServletHolder holder = new ServletHolder(servlet);
        holder.setAsyncSupported(true);
        context.addServlet(holder, "/cometd/*");
        return context;
    }

    BayeuxServer bayeux() {
        return bayeux;
    }

    /** The guard the handler mount installs on the connector; null on the Servlet mount. */
    ConnectionGuard guard() {
        return jetty.getBean(ConnectionGuard.class);
    }

    /** The embedded Jetty, started. */
    Server jetty() {
        return jetty;
    }

    URI uri() {
        return URI.create(origin() + "/cometd");
    }

    /** {@code scheme://host:port} of this server, as a browser would send it in {@code Origin}. */
    String origin() {
        return (secure ? "https" : "http") + "://127.0.0.1:" + connector.getLocalPort();
    }

    /** Requests the server has received and not yet answered. */
    int requestsActive() {
        return statistics.getRequestsActive();
    }

    /** HTTP/1 requests handed to the engine and not yet answered: parked polls, once the engine has them. */
    int waitingRequests() {
        return waiting.getAsInt();
    }

    @Override
    public void close() throws Exception {
        try {
            jetty.stop();
        } finally {
            bayeux.close();
        }
    }
}
