package io.weft.transport.websocket;

import java.net.HttpCookie;
import java.net.URI;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.websocket.api.ExtensionConfig;
import org.eclipse.jetty.websocket.api.UpgradeRequest;
import org.eclipse.jetty.websocket.api.UpgradeResponse;
import org.eclipse.jetty.websocket.common.JettyExtensionConfig;
import org.eclipse.jetty.websocket.common.JettyWebSocketFrameHandler;
import org.eclipse.jetty.websocket.common.WebSocketSession;
import org.eclipse.jetty.websocket.core.CoreSession;

/**
 * What a socket keeps of its HTTP upgrade for its whole life: nothing but a view of what its WebSocket session already
 * knows (request URI, security, version, negotiated extensions and subprotocol).
 *
 * <p>Why: Jetty's native API keeps the upgrade request and response for {@code Session.getUpgradeRequest()} and
 * {@code getUpgradeResponse()}. In Jetty 12.1 its copy of the response headers is a live view of the HTTP response,
 * which keeps the whole HTTP/1.1 connection the socket was upgraded from (parser, generator, channel state, request,
 * response and their headers) reachable as long as the socket is open: about 4.3 KB per idle socket, measured in
 * docs/benchmarks/websocket-idle-memory.md. Weft never hands the Jetty session to anyone, and nothing in Jetty's
 * WebSocket session needs the headers after the upgrade, so these views replace Jetty's copies. Headers, cookies and
 * query parameters read empty.
 */
final class RetainedUpgrade {
    /** Stands in for the session before the socket has opened (Jetty asks nothing of it then). */
    private static final CoreSession NOT_OPEN = new CoreSession.Empty();

    private RetainedUpgrade() {
    }

    /** Gives {@code handler} views instead of copies of the upgrade; call before the socket opens. */
    static void attach(JettyWebSocketFrameHandler handler) {
        handler.setUpgradeRequest(new Request(handler));
        handler.setUpgradeResponse(new Response(handler));
    }

    private static CoreSession core(JettyWebSocketFrameHandler handler) {
        WebSocketSession session = handler.getSession();
        return session == null ? NOT_OPEN : session.getCoreSession();
    }

    private static List<ExtensionConfig> extensions(JettyWebSocketFrameHandler handler) {
        List<org.eclipse.jetty.websocket.core.ExtensionConfig> negotiated = core(handler).getNegotiatedExtensions();
        if (negotiated == null || negotiated.isEmpty()) {
            return List.of();
        }
        return negotiated.stream().<ExtensionConfig>map(JettyExtensionConfig::new).toList();
    }

    /** The upgrade request, as its session knows it: no headers, cookies or parameters. */
    private record Request(JettyWebSocketFrameHandler handler) implements UpgradeRequest {
        @Override
        public List<HttpCookie> getCookies() {
            return List.of();
        }

        @Override
        public List<ExtensionConfig> getExtensions() {
            return extensions(handler);
        }

        @Override
        public String getHeader(String name) {
            return null;
        }

        @Override
        public int getHeaderInt(String name) {
            return -1;
        }

        @Override
        public Map<String, List<String>> getHeaders() {
            return Map.of();
        }

        @Override
        public List<String> getHeaders(String name) {
            return List.of();
        }

        @Override
        public String getHost() {
            URI uri = getRequestURI();
            return uri == null ? null : uri.getHost();
        }

        @Override
        public String getHttpVersion() {
            return null;
        }

        @Override
        public String getMethod() {
            return "GET";
        }

        @Override
        public String getOrigin() {
            return null;
        }

        @Override
        public Map<String, List<String>> getParameterMap() {
            return Map.of();
        }

        @Override
        public String getProtocolVersion() {
            return core(handler).getProtocolVersion();
        }

        @Override
        public String getQueryString() {
            URI uri = getRequestURI();
            return uri == null ? null : uri.getRawQuery();
        }

        @Override
        public URI getRequestURI() {
            URI uri = core(handler).getRequestURI();
            if (uri == null || uri.getScheme() == null || uri.getScheme().startsWith("ws")) {
                return uri;
            }
            return HttpURI.build(uri).scheme(isSecure() ? "wss" : "ws").toURI();
        }

        @Override
        public List<String> getSubProtocols() {
            return List.of();
        }

        @Override
        public Principal getUserPrincipal() {
            return null;
        }

        @Override
        public boolean hasSubProtocol(String subProtocol) {
            return false;
        }

        @Override
        public boolean isSecure() {
            return core(handler).isSecure();
        }
    }

    /** The upgrade response, as its session knows it: no headers. */
    private record Response(JettyWebSocketFrameHandler handler) implements UpgradeResponse {
        @Override
        public String getAcceptedSubProtocol() {
            return core(handler).getNegotiatedSubProtocol();
        }

        @Override
        public List<ExtensionConfig> getExtensions() {
            return extensions(handler);
        }

        @Override
        public String getHeader(String name) {
            return null;
        }

        @Override
        public Set<String> getHeaderNames() {
            return Set.of();
        }

        @Override
        public Map<String, List<String>> getHeaders() {
            return Map.of();
        }

        @Override
        public List<String> getHeaders(String name) {
            return List.of();
        }

        @Override
        public int getStatusCode() {
            return HttpStatus.SWITCHING_PROTOCOLS_101;
        }
    }
}
