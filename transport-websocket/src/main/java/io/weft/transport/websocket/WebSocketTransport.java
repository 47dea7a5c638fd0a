package io.weft.transport.websocket;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ClientRequest;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.BrowserCookies;
import io.weft.server.spi.Engine;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
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
 *   <li>browser cookie: read from the upgrade request, and set on the upgrade response when missing.
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
     * null; when it carried none, a fresh cookie is set on the response for the browser's later requests, but the
     * endpoint does not claim it: a client that never sends cookies back would otherwise bind its session to a value
     * it can never present again, and be refused when it reconnects. The socket is still entitled to the id it set
     * ({@link BayeuxSocket#issuedBrowserId()}): a client that opens its socket first and then handshakes over
     * HTTP with that cookie (the Faye client does) binds its session to it, and may then use it on this socket.
     */
    BayeuxSocket accept(List<String> cookieHeaders, boolean secure, Consumer<String> setCookieHeader,
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
