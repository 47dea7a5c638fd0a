package io.weft.transport.websocket;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Engine;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.websocket.api.ExtensionConfig;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.server.ServerUpgradeRequest;
import org.eclipse.jetty.websocket.server.ServerUpgradeResponse;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;

/**
 * The Bayeux {@code websocket} connection type on Jetty 12, mounted embedded with Jetty's core
 * {@link WebSocketUpgradeHandler}. (In a WAR, use {@link WebSocketServletMount} instead.)
 *
 * <pre>
 * transport (HTTP body / WebSocket frame)   &lt;-- this module: one text frame in = one batch,
 *   -&gt; JSON decode -&gt; extensions -&gt; ...          one engine write out = one text frame
 * </pre>
 *
 * <p>Application code calls {@link #install} (or {@link #mount}) once while assembling its Jetty server, before
 * starting it; everything after that happens on Jetty's threads. Upgrade requests on the path spec become
 * {@link WebSocketEndpoint}s; any other request goes on to the upgrade handler's next handler, usually long-polling on
 * the same path. Each socket is configured from the server's {@link ServerOptions}:
 *
 * <ul>
 *   <li>largest text message and frame: {@code maxMessageSize} (a larger one closes the socket with 1009);
 *   <li>idle timeout: {@code timeout + interval + maxInterval}, always above the time a {@code /meta/connect} is
 *       held, and long enough that a socket which times out had a session that would have expired anyway;
 *   <li>permessage-deflate: negotiated when the client offers it, unless {@code webSocketDeflate} is false;
 *   <li>browser cookie: read from the upgrade request, and set on the upgrade response when missing.
 * </ul>
 */
public final class WebSocketTransport {
    /** The Bayeux connection type this transport serves. */
    public static final String CONNECTION_TYPE = "websocket";
    private static final String DEFLATE = "permessage-deflate";

    private final Engine engine;
    private final ServerOptions options;
    private final BrowserCookies cookies;
    private final Duration idleTimeout;

    private WebSocketTransport(BayeuxServer server) {
        this.engine = Objects.requireNonNull(server, "server").engine();
        this.options = engine.options();
        this.cookies = new BrowserCookies(options.browserCookie());
        this.idleTimeout = Duration.ofMillis(options.timeout() + options.interval() + options.maxInterval());
        engine.addConnectionType(CONNECTION_TYPE);
    }

    /** A transport for {@code server}, announcing the {@code websocket} connection type to its handshakes. */
    static WebSocketTransport of(BayeuxServer server) {
        return new WebSocketTransport(server);
    }

    /**
     * An upgrade handler for a server without contexts: WebSocket upgrades on {@code pathSpec} (for example
     * {@code /cometd/*}) become Bayeux connections; set the handler that serves everything else (long-polling) as the
     * returned handler's next handler with {@link WebSocketUpgradeHandler#setHandler}.
     */
    public static WebSocketUpgradeHandler install(BayeuxServer bayeux, Server server, String pathSpec) {
        WebSocketTransport transport = of(bayeux);
        return WebSocketUpgradeHandler.from(server, container -> transport.mapTo(container, pathSpec));
    }

    /** As {@link #install(BayeuxServer, Server, String)}, for a handler placed inside {@code context}. */
    public static WebSocketUpgradeHandler install(BayeuxServer bayeux, Server server, ContextHandler context,
            String pathSpec) {
        WebSocketTransport transport = of(bayeux);
        return WebSocketUpgradeHandler.from(server, context, container -> transport.mapTo(container, pathSpec));
    }

    /**
     * Adds the Bayeux mapping to an upgrade handler's container the application configures itself, for example
     * inside its own {@code WebSocketUpgradeHandler.from(server, container -> ...)} next to its other endpoints.
     */
    public static void mount(ServerWebSocketContainer container, BayeuxServer bayeux, String pathSpec) {
        of(bayeux).mapTo(container, pathSpec);
    }

    private void mapTo(ServerWebSocketContainer container, String pathSpec) {
        container.addMapping(pathSpec, this::create);
    }

    private WebSocketEndpoint create(ServerUpgradeRequest request, ServerUpgradeResponse response,
            org.eclipse.jetty.util.Callback callback) {
        if (!options.webSocketDeflate()) {
            response.setExtensions(withoutDeflate(response.getExtensions()));
        }
        return accept(request.getHeaders().getValuesList(HttpHeader.COOKIE),
                header -> response.getHeaders().add(HttpHeader.SET_COOKIE, header));
    }

    /**
     * The endpoint for one accepted upgrade. The browser id given to the engine is the cookie the request carried, or
     * null; when it carried none, a fresh cookie is set on the response for the browser's later requests, but the
     * endpoint does not claim it: a client that never sends cookies back would otherwise bind its session to a value
     * it can never present again, and be refused when it reconnects.
     */
    WebSocketEndpoint accept(List<String> cookieHeaders, Consumer<String> setCookieHeader) {
        String browserId = cookies.read(cookieHeaders);
        if (browserId == null) {
            setCookieHeader.accept(cookies.setCookieHeader(cookies.newValue()));
        }
        return new WebSocketEndpoint(this, browserId);
    }

    /** The extensions to accept: all offered ones Jetty supports, minus permessage-deflate if it is switched off. */
    List<ExtensionConfig> withoutDeflate(List<ExtensionConfig> negotiated) {
        return negotiated.stream().filter(extension -> !DEFLATE.equalsIgnoreCase(extension.getName())).toList();
    }

    /** Applies the per-socket limits; set on the socket rather than the container, which others may share. */
    void configure(Session session) {
        session.setIdleTimeout(idleTimeout);
        session.setMaxTextMessageSize(options.maxMessageSize());
        session.setMaxBinaryMessageSize(options.maxMessageSize());
        session.setMaxFrameSize(options.maxMessageSize());
    }

    Engine engine() {
        return engine;
    }

    ServerOptions options() {
        return options;
    }
}
