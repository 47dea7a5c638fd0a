package io.weft.transport.websocket;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ClientRequest;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.BrowserCookies;
import io.weft.server.spi.Engine;
import io.weft.server.spi.RequestSnapshot;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.Session;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.api.WebSocketContainer;
import org.eclipse.jetty.websocket.common.JettyWebSocketFrameHandler;
import org.eclipse.jetty.websocket.common.JettyWebSocketFrameHandlerFactory;
import org.eclipse.jetty.websocket.core.Configuration;
import org.eclipse.jetty.websocket.core.ExtensionConfig;
import org.eclipse.jetty.websocket.core.FrameHandler;
import org.eclipse.jetty.websocket.core.server.ServerUpgradeRequest;
import org.eclipse.jetty.websocket.core.server.ServerUpgradeResponse;
import org.eclipse.jetty.websocket.core.server.WebSocketMappings;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Bayeux {@code websocket} connection type on Jetty 12, mounted embedded with Jetty's core
 * {@link WebSocketUpgradeHandler}. (In a WAR, use {@link WebSocketServletMount} instead.)
 *
 * <pre>
 * transport (HTTP body / WebSocket frame)   &lt;-- this module: one text frame in = one batch,
 *   -&gt; JSON decode -&gt; extensions -&gt; ...          one engine write out = one text frame
 * </pre>
 *
 * <p>Application code calls {@link #install} once while assembling its Jetty server, before starting it; everything
 * after that happens on Jetty's threads. Upgrade requests on the path spec become {@link WebSocketEndpoint}s (Jetty
 * native API endpoints); any other request goes on to the upgrade handler's next handler, usually long-polling on the
 * same path. Each socket is configured from the server's {@link ServerOptions}:
 *
 * <ul>
 *   <li>largest text message and frame: {@code maxMessageSize} (a larger one closes the socket with 1009);
 *   <li>idle timeout: {@code timeout + interval + maxInterval}, always above the time a {@code /meta/connect} is
 *       held, and long enough that a socket which times out had a session that would have expired anyway;
 *   <li>permessage-deflate: negotiated when the client offers it, unless {@code webSocketDeflate} is false;
 *   <li>browser cookie: read from the upgrade request, and set on the upgrade response when missing.
 * </ul>
 *
 * <p>The mapping is registered with the container's core {@link WebSocketMappings} rather than through
 * {@code ServerWebSocketContainer.addMapping}, for one reason: to choose what each socket keeps of its HTTP upgrade
 * (see {@link RetainedUpgrade}). The endpoint is still driven by Jetty's native-API frame handler.
 */
public final class WebSocketTransport {
    /** The Bayeux connection type this transport serves. */
    public static final String CONNECTION_TYPE = "websocket";
    private static final String DEFLATE = "permessage-deflate";

    private final Engine engine;
    private final ServerOptions options;
    private final BrowserCookies cookies;
    private final PeerFaults faults = new PeerFaults();
    private static final Logger LOG = LoggerFactory.getLogger(WebSocketTransport.class);
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
        return install(bayeux, server, null, pathSpec);
    }

    /** As {@link #install(BayeuxServer, Server, String)}, for a handler placed inside {@code context}. */
    public static WebSocketUpgradeHandler install(BayeuxServer bayeux, Server server, ContextHandler context,
            String pathSpec) {
        Objects.requireNonNull(pathSpec, "pathSpec");
        WebSocketTransport transport = of(bayeux);
        return WebSocketUpgradeHandler.from(server, context, container -> {
            WebSocketMappings mappings = container.getBean(WebSocketMappings.class);
            if (mappings == null) {
                throw new IllegalStateException("this Jetty's ServerWebSocketContainer has no WebSocketMappings bean");
            }
            transport.register(mappings, container, pathSpec, container::addBean);
        });
    }

    /**
     * Maps {@code pathSpec} to Bayeux endpoints in {@code mappings}, the core mappings behind {@code container}.
     *
     * @param manage adds a component to the container's life cycle
     */
    void register(WebSocketMappings mappings, WebSocketContainer container, String pathSpec, Consumer<Object> manage) {
        JettyWebSocketFrameHandlerFactory handlers =
                new JettyWebSocketFrameHandlerFactory(container, mappings.getWebSocketComponents());
        manage.accept(handlers);
        mappings.addMapping(WebSocketMappings.parsePathSpec(pathSpec), this::create,
                (endpoint, request, response) -> frameHandler(handlers, endpoint, request, response), this::customize);
    }

    /** The endpoint for one upgrade request; runs on the thread handling the request, before the 101 is sent. */
    private WebSocketEndpoint create(ServerUpgradeRequest request, ServerUpgradeResponse response, Callback callback) {
        String origin = request.getHeaders().get(HttpHeader.ORIGIN);
        if (origin != null && !origin.equalsIgnoreCase(serverOrigin(request)) && !options.isOriginAllowed(origin)) {
            // A page from another site must not open sockets with this browser's cookie (cross-site WebSocket
            // hijacking): the same rule as CORS for long-polling.
            LOG.debug("refusing a WebSocket upgrade from origin {}", origin);
            Response.writeError(request, response, callback, HttpStatus.FORBIDDEN_403, "origin not allowed: " + origin);
            return null;
        }
        if (!options.webSocketDeflate()) {
            response.setExtensions(withoutDeflate(response.getExtensions()));
        }
        return accept(request.getHeaders().getValuesList(HttpHeader.COOKIE), request.isSecure(),
                header -> response.getHeaders().add(HttpHeader.SET_COOKIE, header), snapshot(request));
    }

    private static FrameHandler frameHandler(JettyWebSocketFrameHandlerFactory handlers, Object endpoint,
            ServerUpgradeRequest request, ServerUpgradeResponse response) {
        JettyWebSocketFrameHandler handler = handlers.newJettyFrameHandler(endpoint);
        RetainedUpgrade.attach(handler);
        return handler;
    }

    /** The per-socket limits, applied after the container's defaults (which other endpoints may share). */
    private void customize(Configuration socket) {
        socket.setIdleTimeout(idleTimeout);
        socket.setMaxTextMessageSize(options.maxMessageSize());
        socket.setMaxBinaryMessageSize(options.maxMessageSize());
        socket.setMaxFrameSize(options.maxMessageSize());
    }

    /**
     * The endpoint for one accepted upgrade. The browser id given to the engine is the cookie the request carried, or
     * null; when it carried none, a fresh cookie is set on the response for the browser's later requests, but the
     * endpoint does not claim it: a client that never sends cookies back would otherwise bind its session to a value
     * it can never present again, and be refused when it reconnects. The socket is still entitled to the id it set
     * ({@link WebSocketEndpoint#issuedBrowserId()}): a client that opens its socket first and then handshakes over
     * HTTP with that cookie (the Faye client does) binds its session to it, and may then use it on this socket.
     */
    WebSocketEndpoint accept(List<String> cookieHeaders, boolean secure, Consumer<String> setCookieHeader,
            ClientRequest upgrade) {
        String browserId = cookies.read(cookieHeaders);
        String issued = null;
        if (browserId == null) {
            issued = cookies.newValue();
            setCookieHeader.accept(cookies.setCookieHeader(issued, secure));
        }
        return new WebSocketEndpoint(this, browserId, issued, upgrade);
    }

    /**
     * What the upgrade request carried, for the sessions handshaken on its socket, kept as long as the socket: every
     * header but those of the WebSocket handshake itself, which mean nothing once the socket is open.
     */
    private static ClientRequest snapshot(Request request) {
        RequestSnapshot.Builder copy = RequestSnapshot.builder();
        for (HttpField field : request.getHeaders()) {
            HttpHeader header = field.getHeader();
            if (header != HttpHeader.UPGRADE && header != HttpHeader.CONNECTION && header != HttpHeader.SEC_WEBSOCKET_KEY
                    && header != HttpHeader.SEC_WEBSOCKET_VERSION && header != HttpHeader.SEC_WEBSOCKET_EXTENSIONS) {
                copy.header(field.getName(), field.getValue());
            }
        }
        if (request.getConnectionMetaData().getRemoteSocketAddress() instanceof InetSocketAddress address) {
            copy.remoteAddress(address);
        }
        Request.AuthenticationState authentication = Request.getAuthenticationState(request);
        if (authentication != null) {
            copy.userPrincipal(authentication.getUserPrincipal());
        }
        Session session = request.getSession(false);
        if (session != null) {
            copy.httpSession(session.getId(), name -> session.isValid() ? session.getAttribute(name) : null);
        }
        return copy.secure(request.isSecure()).build();
    }

    /** This server's own origin as a browser names it in {@code Origin}: {@code http://host[:port]}. */
    private static String serverOrigin(Request request) {
        String scheme = request.isSecure() ? "https" : "http";
        int port = Request.getServerPort(request);
        boolean defaultPort = port <= 0 || (!request.isSecure() && port == 80) || (request.isSecure() && port == 443);
        return scheme + "://" + Request.getServerName(request) + (defaultPort ? "" : ":" + port);
    }

    /** The negotiated extensions minus permessage-deflate. */
    private static List<ExtensionConfig> withoutDeflate(List<ExtensionConfig> negotiated) {
        return negotiated.stream().filter(extension -> !DEFLATE.equalsIgnoreCase(extension.getName())).toList();
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
}
