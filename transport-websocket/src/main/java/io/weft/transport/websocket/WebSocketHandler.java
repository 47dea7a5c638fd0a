package io.weft.transport.websocket;

import io.weft.server.api.ClientRequest;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Origins;
import io.weft.server.spi.RequestSnapshot;
import io.weft.transport.common.BayeuxSocket;
import io.weft.transport.common.WebSockets;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.Session;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.core.Configuration;
import org.eclipse.jetty.websocket.core.ExtensionConfig;
import org.eclipse.jetty.websocket.core.server.ServerUpgradeRequest;
import org.eclipse.jetty.websocket.core.server.ServerUpgradeResponse;
import org.eclipse.jetty.websocket.core.server.WebSocketNegotiator;
import org.eclipse.jetty.websocket.core.server.WebSocketServerComponents;
import org.eclipse.jetty.websocket.core.server.WebSocketUpgradeHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code websocket} connection type on an embedded Jetty 12 server, made by {@link WebSocketTransport#install}:
 * WebSocket upgrades on its path become Bayeux sockets ({@link JettyFrameHandler}, on Jetty's core WebSocket API), and
 * every other request goes to the handler set with {@link #setHandler} (long-polling on the same path, usually).
 *
 * <p>Before an upgrade is accepted: the origin check (a page from another site must not open sockets with this
 * browser's cookie: the rule CORS applies to long-polling), the browser cookie (read from the request; never set on the
 * 101: see transport-common's {@code WebSockets.accept}), and the copy of what the request carried for the security policy.
 */
public final class WebSocketHandler extends WebSocketUpgradeHandler {
    private static final Logger LOG = LoggerFactory.getLogger(WebSocketHandler.class);
    private static final String DEFLATE = "permessage-deflate";

    private final WebSockets transport;
    private final ServerOptions options;
    private final Duration idleTimeout;
    private volatile Consumer<JettyFrameHandler> opened = handler -> { };

    WebSocketHandler(WebSockets transport, Server server, String pathSpec) {
        super(WebSocketServerComponents.ensureWebSocketComponents(server));
        this.transport = transport;
        this.options = transport.options();
        this.idleTimeout = Duration.ofMillis(transport.idleTimeoutMillis());
        addMapping(pathSpec, WebSocketNegotiator.from(this::create, (handler, request, response) ->
                (JettyFrameHandler) handler, this::customize));
        transport.announce();
    }

    /** How many Bayeux sockets are open on this mount. */
    public int openSockets() {
        return transport.openSockets();
    }

    /** Tests: told of each socket as it is accepted. */
    void onAccept(Consumer<JettyFrameHandler> listener) {
        this.opened = listener;
    }

    /** The socket for one upgrade request; runs on the thread handling the request, before the 101 is sent. */
    private JettyFrameHandler create(ServerUpgradeRequest request, ServerUpgradeResponse response, Callback callback) {
        String origin = request.getHeaders().get(HttpHeader.ORIGIN);
        if (!Origins.check(origin, () -> serverOrigin(request), options).allowed()) {
            LOG.debug("refusing a WebSocket upgrade from origin {}", origin);
            Response.writeError(request, response, callback, HttpStatus.FORBIDDEN_403, "origin not allowed");
            return null;
        }
        if (!options.webSocketDeflate()) {
            response.setExtensions(withoutDeflate(response.getExtensions()));
        }
        BayeuxSocket socket = transport.accept(request.getHeaders().getValuesList(HttpHeader.COOKIE), snapshot(request));
        JettyFrameHandler handler = new JettyFrameHandler(socket);
        opened.accept(handler);
        return handler;
    }

    /** The per-socket limits, applied after the container's defaults. */
    private void customize(Configuration socket) {
        socket.setIdleTimeout(idleTimeout);
        socket.setMaxTextMessageSize(options.maxMessageSize());
        socket.setMaxBinaryMessageSize(options.maxMessageSize());
        socket.setMaxFrameSize(options.maxMessageSize());
    }

    /** What the upgrade request carried: every header but those of the WebSocket handshake itself. */
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

    /** This server's own origin as a browser names it in {@code Origin}. */
    private static String serverOrigin(Request request) {
        return Origins.of(request.isSecure() ? "https" : "http", Request.getServerName(request),
                Request.getServerPort(request));
    }

    /** The negotiated extensions minus permessage-deflate. */
    private static List<ExtensionConfig> withoutDeflate(List<ExtensionConfig> negotiated) {
        return negotiated.stream().filter(extension -> !DEFLATE.equalsIgnoreCase(extension.getName())).toList();
    }
}
