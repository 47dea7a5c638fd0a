package io.weft.transport.netty;

import io.netty.handler.ssl.SslContext;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Engine;
import io.weft.transport.common.PollingTransport;
import io.weft.transport.common.TrustedProxies;
import io.weft.transport.common.WebSockets;

/**
 * What every connection of one {@link WeftNetty} shares: the engine, the two transports of transport-common, where
 * Bayeux is served, what serves the rest, and which proxies are trusted. Immutable.
 */
final class Mount {
    /** The most a fallback request body may hold. */
    static final int MAX_FALLBACK_BODY = 1024 * 1024;
    /** How long a connection may sit without a request in progress before it is closed (Jetty's default). */
    static final long IDLE_MILLIS = 30_000;

    final Engine engine;
    final ServerOptions options;
    final PollingTransport polling;
    final WebSockets webSockets;
    final String path;
    final SslContext tls;
    final Fallback fallback;
    /** The reverse proxies whose forwarded headers are read; null: none, the client is the TCP peer. */
    final TrustedProxies proxies;

    Mount(BayeuxServer bayeux, String path, SslContext tls, Fallback fallback, TrustedProxies proxies) {
        this.engine = Engine.of(bayeux);
        this.options = engine.options();
        // As WeftJetty announces them: the polling types first, then websocket.
        this.polling = new PollingTransport(engine, true);
        this.webSockets = WebSockets.of(bayeux);
        this.webSockets.announce();
        this.path = path;
        this.tls = tls;
        this.fallback = fallback;
        this.proxies = proxies;
    }

    /**
     * The part of a decoded request path below the mount: empty for the mount itself, {@code /abc} for
     * {@code <path>/abc}; null for a path outside it.
     */
    String below(String requestPath) {
        if (path.equals("/")) {
            return requestPath.equals("/") ? "" : requestPath;
        }
        if (!requestPath.startsWith(path)) {
            return null;
        }
        if (requestPath.length() == path.length()) {
            return "";
        }
        return requestPath.charAt(path.length()) == '/' ? requestPath.substring(path.length()) : null;
    }

    boolean secure() {
        return tls != null;
    }
}
