package io.weft.transport.longpoll;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Addresses;
import io.weft.server.spi.Engine;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a Jetty server's connectors let one client hold before a request reaches Weft: connections per address
 * ({@link ServerOptions#maxConnectionsPerAddress()}) and the time a request head may take to arrive
 * ({@link ServerOptions#requestHeadTimeout()}). Jetty's idle timeout restarts with every byte read, so without this a
 * head trickled a byte at a time holds its connection for as long as the client likes (hours within the 8 KB header
 * limit), and nothing bounds how many such connections one address opens.
 *
 * <ul>
 *   <li>Connections: every connection that opens on a socket is counted under its peer's address (an IPv6 address by
 *       its /64, as the session bounds count), and closed at once, counted as {@link Limit#CONNECTIONS_PER_ADDRESS},
 *       if its address already has the maximum open. The count is the TCP peer's; a reverse proxy the server trusts
 *       ({@link LongPollingConnectors#trustProxies}) is not counted: it carries many clients, and bounds them
 *       itself.</li>
 *   <li>Request heads: an HTTP/1 connection that has read bytes since its last request was handled, without those
 *       bytes making a complete head within the timeout, is closed and counted as {@link Limit#REQUEST_HEAD}. A request
 *       whose head has arrived is the handler's (bodies have their own deadline). A sweep looks at every HTTP/1
 *       connection a few times per timeout, so a head is cut between one and one and a quarter timeouts after its
 *       first byte was seen. HTTP/2 streams are Jetty's HTTP/2 implementation's to bound.</li>
 * </ul>
 *
 * <p>Installed once per server by {@link #installOn}, which the Weft handlers call as they start; public API only
 * (connection listeners, a request customizer and the connection's byte and request counts).
 */
public final class ConnectionGuard extends AbstractLifeCycle implements HttpConfiguration.Customizer {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);
    private static final byte[] REQUEST_TIMEOUT = ("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n"
            + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

    private final Server server;
    private final Engine engine;
    private final int maxPerAddress;
    private final long headTimeoutNanos;
    private final long sweepMillis;
    private final ConcurrentHashMap<Object, Integer> perAddress = new ConcurrentHashMap<>();
    /** The connections counted, each with the key it is counted under. */
    private final ConcurrentHashMap<Connection, Object> counted = new ConcurrentHashMap<>();
    /** HTTP/1 connections, each with its head clock. */
    private final ConcurrentHashMap<Connection, HeadClock> heads = new ConcurrentHashMap<>();
    private final Connection.Listener counter = new Counter();
    private final Connection.Listener http1 = new Http1Watch();
    private volatile Scheduler.Task sweep;

    private ConnectionGuard(Server server, Engine engine) {
        this.server = server;
        this.engine = engine;
        ServerOptions options = engine.options();
        this.maxPerAddress = options.maxConnectionsPerAddress();
        this.headTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(options.requestHeadTimeout());
        this.sweepMillis = Math.max(10, Math.min(1000, options.requestHeadTimeout() / 4));
    }

    /**
     * Guards every connector {@code server} has now, with {@code bayeux}'s options; once per server (a second call, or
     * a Weft handler's start on the same server, does nothing). Call before the server starts, or connections opened
     * before are not counted. {@link LongPollingHandler} calls it itself; an application that mounts only the Servlet
     * on embedded Jetty calls it.
     */
    public static void installOn(Server server, BayeuxServer bayeux) {
        installOn(server, Engine.of(bayeux));
    }

    static void installOn(Server server, Engine engine) {
        synchronized (server) {
            if (server.getBean(ConnectionGuard.class) != null) {
                return;
            }
            ConnectionGuard guard = new ConnectionGuard(server, engine);
            server.addBean(guard, true);
            for (Connector connector : server.getConnectors()) {
                connector.addEventListener(guard.counter);
                HttpConnectionFactory http = connector.getConnectionFactory(HttpConnectionFactory.class);
                if (http != null) {
                    http.addEventListener(guard.http1);
                    HttpConfiguration configuration = http.getHttpConfiguration();
                    if (!configuration.getCustomizers().contains(guard)) {
                        configuration.addCustomizer(guard);
                    }
                }
            }
            if (!server.isStopped()) {
                // Installed while the server starts (by a handler's start): the server's own start may be past its beans.
                try {
                    guard.start();
                } catch (Exception x) {
                    throw new IllegalStateException("cannot start the connection guard", x);
                }
            }
        }
    }

    /** How many connections are open from {@code address}'s key; for tests. */
    int connectionsFrom(InetAddress address) {
        return perAddress.getOrDefault(Addresses.key(address), 0);
    }

    @Override
    protected void doStart() {
        scheduleSweep();
    }

    @Override
    protected void doStop() {
        Scheduler.Task task = sweep;
        if (task != null) {
            task.cancel();
        }
    }

    private void scheduleSweep() {
        if (isRunning() || isStarting()) {
            sweep = server.getScheduler().schedule(this::sweep, sweepMillis, TimeUnit.MILLISECONDS);
        }
    }

    /** A request head arrived whole: until its request has been handled, the connection's bytes are its body's. */
    @Override
    public Request customize(Request request, HttpFields.Mutable responseHeaders) {
        HeadClock clock = heads.get(request.getConnectionMetaData().getConnection());
        if (clock != null) {
            clock.busy = true;
            clock.headSince = 0;
            Request.addCompletionListener(request, failure -> clock.handled());
        }
        return request;
    }

    private void sweep() {
        try {
            long now = NanoTime.now();
            heads.values().forEach(clock -> clock.check(now));
        } catch (Throwable x) {
            LOG.warn("request head sweep failed", x);
        } finally {
            scheduleSweep();
        }
    }

    /**
     * Where an HTTP/1 connection is between its requests. Jetty handles an HTTP/1 connection's requests one after the
     * other, so {@link #busy} is set and cleared in turn, never by two requests at once.
     */
    private final class HeadClock {
        final Connection connection;
        /** Whether a request whose head has arrived is being handled. */
        volatile boolean busy;
        /** The connection's bytes read when it opened or its last request was handled. */
        volatile long bytesAtRest;
        /** When the sweep first saw bytes past {@link #bytesAtRest} with no request being handled; 0 if it has not. */
        volatile long headSince;

        HeadClock(Connection connection) {
            this.connection = connection;
            this.bytesAtRest = connection.getBytesIn();
        }

        void handled() {
            bytesAtRest = connection.getBytesIn();
            headSince = 0;
            busy = false;
        }

        void check(long now) {
            if (busy || connection.getBytesIn() <= bytesAtRest) {
                headSince = 0;
                return;
            }
            long since = headSince;
            if (since == 0) {
                headSince = now;
            } else if (NanoTime.elapsed(since, now) > headTimeoutNanos) {
                heads.remove(connection);
                engine.refused(Limit.REQUEST_HEAD);
                LOG.debug("closing {}: no whole request head within {} ms (requestHeadTimeout)", connection,
                        TimeUnit.NANOSECONDS.toMillis(headTimeoutNanos));
                answerAndClose(connection.getEndPoint());
            }
        }
    }

    /**
     * Tells the client why, if its socket takes the few bytes now (no response is in progress between requests), and
     * closes. The endpoint, not the connection: closing an HTTP connection mid-head makes Jetty answer 500.
     */
    private static void answerAndClose(EndPoint endPoint) {
        try {
            endPoint.flush(ByteBuffer.wrap(REQUEST_TIMEOUT));
        } catch (IOException x) {
            // gone already
        }
        endPoint.close();
    }

    /** Counts connections per peer address, and closes one past the bound as it opens. */
    private final class Counter implements Connection.Listener {
        @Override
        public void onOpened(Connection connection) {
            Object key = key(connection);
            if (key == null) {
                return;
            }
            counted.put(connection, key);
            int open = perAddress.merge(key, 1, Integer::sum);
            if (open > maxPerAddress) {
                engine.refused(Limit.CONNECTIONS_PER_ADDRESS);
                LOG.debug("closing {}: its address has {} connections open (maxConnectionsPerAddress)", connection,
                        open - 1);
                // The endpoint, not the connection: closing an HTTP connection makes Jetty answer 500.
                connection.getEndPoint().close();
            }
        }

        @Override
        public void onClosed(Connection connection) {
            // Counted under the key it opened with: a closed socket no longer knows its peer.
            Object key = counted.remove(connection);
            if (key != null) {
                perAddress.computeIfPresent(key, (k, open) -> open <= 1 ? null : open - 1);
            }
        }

        /** The address a connection on a socket counts under; null for one that is not (TLS's inner connection). */
        private Object key(Connection connection) {
            if (!(connection.getEndPoint() instanceof SocketChannelEndPoint endPoint)) {
                return null;
            }
            InetAddress address = Addresses.of(endPoint.getRemoteSocketAddress());
            return address == null || fromTrustedProxy(address) ? null : Addresses.key(address);
        }
    }

    /**
     * Whether {@code address} is a proxy the server trusts ({@link LongPollingConnectors#trustProxies}): its
     * connections carry many clients', and are bounded at the proxy, not here. Asked as a connection opens; the
     * proxies may be named after the guard is installed.
     */
    private boolean fromTrustedProxy(InetAddress address) {
        for (Connector connector : server.getConnectors()) {
            for (ConnectionFactory factory : connector.getConnectionFactories()) {
                if (factory instanceof HttpConfiguration.ConnectionFactory http) {
                    for (HttpConfiguration.Customizer customizer : http.getHttpConfiguration().getCustomizers()) {
                        if (customizer instanceof TrustedProxyCustomizer proxies && proxies.trusts(address)) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    /** Keeps a head clock for each HTTP/1 connection while it is open. */
    private final class Http1Watch implements Connection.Listener {
        @Override
        public void onOpened(Connection connection) {
            heads.put(connection, new HeadClock(connection));
        }

        @Override
        public void onClosed(Connection connection) {
            heads.remove(connection);
        }
    }
}
