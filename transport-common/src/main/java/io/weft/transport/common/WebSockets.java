package io.weft.transport.common;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ClientRequest;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.BrowserCookies;
import io.weft.server.spi.Engine;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Bayeux {@code websocket} connection type on one server, whatever carries its sockets (Jetty's core WebSocket
 * API, the Jakarta API in a Servlet container, Netty): what every mount shares before and after an upgrade. Each
 * socket is configured from the server's {@link ServerOptions}:
 *
 * <ul>
 *   <li>largest text message and frame: {@code maxMessageSize} (a larger one closes the socket with 1009);
 *   <li>idle timeout: {@code timeout + interval + maxInterval} ({@link #idleTimeoutMillis()}), always above the time a
 *       {@code /meta/connect} is held, and long enough that a socket which times out had a session that would have
 *       expired anyway;
 *   <li>permessage-deflate: negotiated when the client offers it and the container has it, unless
 *       {@code webSocketDeflate} is false;
 *   <li>browser cookie: read from the upgrade request, never set on the upgrade response ({@link #accept}).
 * </ul>
 */
public final class WebSockets {
    /** The Bayeux connection type of these sockets. */
    public static final String CONNECTION_TYPE = "websocket";

    private final Engine engine;
    private final ServerOptions options;
    private final BrowserCookies cookies;
    private final PeerFaults faults = new PeerFaults();
    private final long idleTimeoutMillis;
    private final AtomicInteger openSockets = new AtomicInteger();

    private WebSockets(Engine engine) {
        this.engine = engine;
        this.options = engine.options();
        this.cookies = new BrowserCookies(options.browserCookie());
        this.idleTimeoutMillis = options.timeout() + options.interval() + options.maxInterval();
    }

    /** The sockets of {@code server}; they are offered to handshakes once {@link #announce}d. */
    public static WebSockets of(BayeuxServer server) {
        return new WebSockets(Engine.of(Objects.requireNonNull(server, "server")));
    }

    /** Offers the {@code websocket} connection type in handshake replies: called once the mount can serve it. */
    public void announce() {
        engine.addConnectionType(CONNECTION_TYPE);
    }

    /**
     * The endpoint for one accepted upgrade. The browser id given to the engine is the cookie the request carried, or
     * null. The 101 never sets one: a socket's cookies are fixed when it opens, so a cookie set on its own upgrade
     * could only serve the browser's other requests, and an upgrade without a cookie is exactly the one that may race
     * an HTTP handshake of the same browser whose reply sets the browser's cookie (the Faye client opens its socket
     * while it handshakes): set here it would replace that cookie in the browser, and the session bound to it would
     * refuse every later request. The browser's cookie comes from HTTP (the handshake's reply); a cookieless socket
     * of such a race is admitted by the engine's first-visit rule (docs/protocol.md, "Browsers").
     */
    public BayeuxSocket accept(List<String> cookieHeaders, ClientRequest upgrade) {
        return new BayeuxSocket(this, cookies.read(cookieHeaders), upgrade);
    }

    void opened() {
        openSockets.incrementAndGet();
    }

    void closed() {
        openSockets.decrementAndGet();
    }

    /** How many sockets are open. */
    public int openSockets() {
        return openSockets.get();
    }

    Engine engine() {
        return engine;
    }

    public ServerOptions options() {
        return options;
    }

    PeerFaults faults() {
        return faults;
    }

    /** How long a socket may go without reading or writing before it is closed. */
    public long idleTimeoutMillis() {
        return idleTimeoutMillis;
    }
}
