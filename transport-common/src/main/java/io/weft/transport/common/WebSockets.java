package io.weft.transport.common;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ClientRequest;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.BrowserCookies;
import io.weft.server.spi.Engine;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

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
 *   <li>browser cookie: read from the upgrade request, and set on the upgrade response when missing
 *       ({@link #accept}).
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
     * null; when it carried none, a fresh cookie is set on the response for the browser's later requests, but the
     * endpoint does not claim it: a client that never sends cookies back would otherwise bind its session to a value
     * it can never present again, and be refused when it reconnects. The socket is still entitled to the id it set
     * ({@link BayeuxSocket#issuedBrowserId()}): a client that opens its socket first and then handshakes over
     * HTTP with that cookie (the Faye client does) binds its session to it, and may then use it on this socket.
     */
    public BayeuxSocket accept(List<String> cookieHeaders, boolean secure, Consumer<String> setCookieHeader,
            ClientRequest upgrade) {
        String browserId = cookies.read(cookieHeaders);
        String issued = null;
        if (browserId == null) {
            issued = cookies.newValue();
            setCookieHeader.accept(cookies.setCookieHeader(issued, secure));
        }
        return new BayeuxSocket(this, browserId, issued, upgrade);
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
