package io.weft.transport.websocket;

import io.weft.server.api.ClientRequest;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Addresses;
import io.weft.server.spi.Origins;
import io.weft.server.spi.RequestSnapshot;
import io.weft.transport.common.BayeuxSocket;
import io.weft.transport.common.WebSockets;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import jakarta.websocket.DeploymentException;
import jakarta.websocket.Extension;
import jakarta.websocket.server.ServerContainer;
import jakarta.websocket.server.ServerEndpointConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns WebSocket upgrade requests on its path into Bayeux sockets, and lets every other request through to the
 * application (long-polling on the same path). One per mount; the container calls it on its request threads.
 *
 * <p>What the Jakarta API leaves out is done here, before the upgrade, with the Servlet API: the origin check (a page
 * from another site must not open sockets with this browser's cookie, the rule CORS applies to long-polling), the
 * browser cookie (read from the request; never set on the 101: see {@link WebSocketTransport#accept}), and the copy of
 * what the request carried for the security policy ({@link ClientRequest}). The upgrade itself goes through {@link ServerContainer#upgradeHttpToWebSocket} with a
 * configuration made for this one request, whose configurator hands the container the endpoint already made: no
 * endpoint class is registered with the container, so nothing else can reach it.
 */
final class UpgradeFilter implements Filter {
    private static final Logger LOG = LoggerFactory.getLogger(UpgradeFilter.class);
    /** Headers of the WebSocket handshake itself: they mean nothing once the socket is open. */
    private static final Set<String> HANDSHAKE_HEADERS = Set.of("upgrade", "connection", "sec-websocket-key",
            "sec-websocket-version", "sec-websocket-extensions");

    private final WebSockets transport;
    private final ServerOptions options;
    private final String path;
    /** The context's Jakarta WebSocket container; null until {@link #init}, and after it where there is none. */
    private volatile ServerContainer container;

    /**
     * @param container the context's container if it is already known, else null: {@link #init} looks for it
     * @param path the endpoint path the container is told (the mount's path without its {@code /*})
     */
    UpgradeFilter(WebSockets transport, ServerContainer container, String path) {
        this.transport = transport;
        this.options = transport.options();
        this.container = container;
        this.path = path;
        if (container != null) {
            transport.announce();
        }
    }

    /**
     * Looks for the container when the context starts, if it was not there at mount time (Spring Boot's Tomcat starts
     * its WebSocket support after the initializers that mount). Without one, websocket is not served: handshakes do
     * not offer it, upgrades go through to the application like any request, and one WARN line says why.
     */
    @Override
    public void init(FilterConfig config) {
        if (container != null) {
            return;
        }
        ServletContext context = config.getServletContext();
        if (context.getAttribute(WebSocketServletMount.SERVER_CONTAINER) instanceof ServerContainer found) {
            container = found;
            transport.announce();
        } else {
            LOG.warn("no Jakarta WebSocket container in context '{}' ({}): websocket is not served, clients use "
                    + "long-polling; on Jetty, enable the ee11-websocket-jakarta module", context.getContextPath(),
                    context.getServerInfo());
        }
    }

    /** A filter for {@code container}, the context's {@code ServerContainer} attribute if it has one (else null). */
    static UpgradeFilter of(WebSockets transport, Object container, String path) {
        return new UpgradeFilter(transport, container instanceof ServerContainer found ? found : null, path);
    }

    /** The endpoint path for a Servlet path spec: {@code /cometd/*} is {@code /cometd}; {@code /*} is {@code /}. */
    static String endpointPath(String pathSpec) {
        String path = pathSpec.endsWith("/*") ? pathSpec.substring(0, pathSpec.length() - 2) : pathSpec;
        return path.isEmpty() ? "/" : path;
    }

    /** A WebSocket upgrade over HTTP/1.1: {@code GET} with {@code Upgrade: websocket}. */
    static boolean isUpgrade(HttpServletRequest request) {
        String upgrade = request.getHeader("Upgrade");
        return upgrade != null && "GET".equals(request.getMethod())
                && upgrade.toLowerCase(Locale.ROOT).contains("websocket");
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse resp, FilterChain chain)
            throws IOException, ServletException {
        ServerContainer container = this.container;
        if (container == null || !(req instanceof HttpServletRequest request)
                || !(resp instanceof HttpServletResponse response) || !isUpgrade(request)) {
            chain.doFilter(req, resp);
            return;
        }
        String origin = request.getHeader("Origin");
        if (!Origins.check(origin, () -> serverOrigin(request), options).allowed()) {
            LOG.debug("refusing a WebSocket upgrade from origin {}", origin);
            response.sendError(HttpServletResponse.SC_FORBIDDEN, "origin not allowed");
            return;
        }
        BayeuxSocket socket = transport.accept(Collections.list(request.getHeaders("Cookie")), snapshot(request));
        WebSocketEndpoint endpoint = new WebSocketEndpoint(socket, transport);
        ServerEndpointConfig config = ServerEndpointConfig.Builder.create(WebSocketEndpoint.class, path)
                .configurator(new Admit(endpoint, options.webSocketDeflate())).build();
        DetachableRequest upgrade = new DetachableRequest(request);
        try {
            container.upgradeHttpToWebSocket(upgrade, response, config, Map.of());
        } catch (DeploymentException x) {
            LOG.warn("WebSocket upgrade failed on {}", request.getRequestURI(), x);
            if (!response.isCommitted()) {
                response.sendError(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
            }
            return;
        } finally {
            upgrade.detach();
        }
        if (!response.isCommitted() && response.getStatus() != HttpServletResponse.SC_SWITCHING_PROTOCOLS) {
            // The container declined the request without answering it (Jetty does, for what it does not take for
            // an upgrade): it is not one the server can accept.
            response.sendError(HttpServletResponse.SC_BAD_REQUEST, "not a valid WebSocket upgrade");
        }
    }

    /** This server's own origin as a browser names it in {@code Origin}. */
    private static String serverOrigin(HttpServletRequest request) {
        return Origins.of(request.getScheme(), request.getServerName(), request.getServerPort());
    }

    /**
     * What the upgrade request carried, for the sessions handshaken on its socket, kept as long as the socket: every
     * header but those of the WebSocket handshake.
     */
    private static ClientRequest snapshot(HttpServletRequest request) {
        RequestSnapshot.Builder copy = RequestSnapshot.builder();
        for (String name : Collections.list(request.getHeaderNames())) {
            if (!HANDSHAKE_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                for (String value : Collections.list(request.getHeaders(name))) {
                    copy.header(name, value);
                }
            }
        }
        InetAddress address = Addresses.literal(request.getRemoteAddr());
        if (address != null) {
            copy.remoteAddress(new InetSocketAddress(address, request.getRemotePort()));
        }
        copy.userPrincipal(request.getUserPrincipal());
        HttpSession session = request.getSession(false);
        if (session != null) {
            copy.httpSession(session.getId(), name -> {
                try {
                    return session.getAttribute(name);
                } catch (IllegalStateException ended) {
                    return null;
                }
            });
        }
        return copy.secure(request.isSecure()).build();
    }

    /** The configurator of one upgrade: the endpoint made for it, the origin already checked, deflate or not. */
    private static final class Admit extends ServerEndpointConfig.Configurator {
        private final WebSocketEndpoint endpoint;
        private final boolean deflate;

        Admit(WebSocketEndpoint endpoint, boolean deflate) {
            this.endpoint = endpoint;
            this.deflate = deflate;
        }

        @Override
        public boolean checkOrigin(String originHeaderValue) {
            return true;
        }

        @Override
        public List<Extension> getNegotiatedExtensions(List<Extension> installed, List<Extension> requested) {
            return deflate ? super.getNegotiatedExtensions(installed, requested) : List.of();
        }

        @Override
        public <T> T getEndpointInstance(Class<T> endpointClass) {
            return endpointClass.cast(endpoint);
        }
    }
}
