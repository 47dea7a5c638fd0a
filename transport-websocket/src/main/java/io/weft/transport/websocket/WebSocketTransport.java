package io.weft.transport.websocket;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ClientRequest;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.BrowserCookies;
import io.weft.server.spi.Engine;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.server.Server;

/**
 * The Bayeux {@code websocket} connection type, on the standard Jakarta WebSocket API: it runs in any Servlet 6
 * container with a Jakarta WebSocket 2.1+ container (Jetty 12, Tomcat 10.1+).
 *
 * <pre>
 * transport (HTTP body / WebSocket frame)   &lt;-- this module: one text message in = one batch,
 *   -&gt; JSON decode -&gt; extensions -&gt; ...          one engine write out = one text message
 * </pre>
 *
 * <p>Two ways to mount it. In a web application (a WAR, Spring Boot), {@link WebSocketServletMount#mount} from a
 * {@code ServletContextListener}: Weft's {@link UpgradeFilter} on the path checks the upgrade's origin, reads or sets
 * the browser cookie, copies what the request carried, and upgrades through the container's
 * {@code ServerContainer.upgradeHttpToWebSocket}, one {@link WebSocketEndpoint} per socket. On embedded Jetty,
 * {@link #install}: a {@link WebSocketHandler} in front of long-polling does the same on Jetty's core WebSocket API,
 * which costs less memory per socket than Jetty's Jakarta sessions. Both hand each socket to a {@link BayeuxSocket}.
 * Each socket is configured from the server's {@link ServerOptions}:
 *
 * <ul>
 *   <li>largest text message and frame: {@code maxMessageSize} (a larger one closes the socket with 1009);
 *   <li>idle timeout: {@code timeout + interval + maxInterval}, always above the time a {@code /meta/connect} is
 *       held, and long enough that a socket which times out had a session that would have expired anyway;
 *   <li>permessage-deflate: negotiated when the client offers it and the container has it, unless
 *       {@code webSocketDeflate} is false;
 *   <li>browser cookie: read from the upgrade request, never set on the upgrade response ({@link #accept}).
 * </ul>
 */
public final class WebSocketTransport {
    /** The Bayeux connection type this transport serves. */
    public static final String CONNECTION_TYPE = "websocket";

    private final Engine engine;
    private final ServerOptions options;
    private final BrowserCookies cookies;
    private final PeerFaults faults = new PeerFaults();
    private final long idleTimeoutMillis;
    private final AtomicInteger openSockets = new AtomicInteger();

    private WebSocketTransport(BayeuxServer server) {
        this.engine = Engine.of(Objects.requireNonNull(server, "server"));
        this.options = engine.options();
        this.cookies = new BrowserCookies(options.browserCookie());
        this.idleTimeoutMillis = options.timeout() + options.interval() + options.maxInterval();
    }

    /** A transport for {@code server}; it offers websocket to handshakes once {@link #announce}d. */
    static WebSocketTransport of(BayeuxServer server) {
        return new WebSocketTransport(server);
    }

    /** Offers the {@code websocket} connection type in handshake replies: called once the mount can serve it. */
    void announce() {
        engine.addConnectionType(CONNECTION_TYPE);
    }

    /**
     * The handler that mounts this transport on an embedded Jetty {@code server} without Servlet contexts: WebSocket
     * upgrades on {@code pathSpec} (for example {@code /cometd/*}) become Bayeux connections, and every other request
     * goes to the handler set with {@link WebSocketHandler#setHandler} (long-polling, usually). Call it once while
     * assembling the server, before starting it.
     */
    public static WebSocketHandler install(BayeuxServer bayeux, Server server, String pathSpec) {
        return new WebSocketHandler(of(bayeux), server, pathSpec);
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
    BayeuxSocket accept(List<String> cookieHeaders, ClientRequest upgrade) {
        return new BayeuxSocket(this, cookies.read(cookieHeaders), upgrade);
    }

    void opened() {
        openSockets.incrementAndGet();
    }

    void closed() {
        openSockets.decrementAndGet();
    }

    /** How many sockets of this transport are open. */
    int openSockets() {
        return openSockets.get();
    }

    Engine engine() {
        return engine;
    }

    ServerOptions options() {
        return options;
    }

    PeerFaults faults() {
        return faults;
    }

    long idleTimeoutMillis() {
        return idleTimeoutMillis;
    }
}
