package io.weft.transport.websocket;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;

/**
 * The upgrade request as Weft hands it to {@code upgradeHttpToWebSocket}: once the upgrade is done, {@link #detach}
 * lets go of the container's request, keeping only what a WebSocket session may still ask of it (its URI and path
 * parts, query and principal).
 *
 * <p>Why: Jetty's Jakarta session keeps the request it was upgraded from for {@code Session.getRequestURI()} and
 * {@code getUserPrincipal()} as long as the socket is open, and Jetty's request keeps the whole HTTP/1.1 connection
 * the socket came from (parser, generator, buffers, request and response with their headers): about 4 KB per idle
 * socket (docs/benchmarks/websocket-idle-memory.md). Passing this wrapper and detaching it is the Servlet API's own
 * way out ({@link HttpServletRequestWrapper#setRequest}); Tomcat copies what it needs and lets go of the request
 * itself. What the application may read of the upgrade is in the {@code ClientRequest} copy made before.
 */
final class DetachableRequest extends HttpServletRequestWrapper {
    /** Stands in for the container's request after {@link #detach}: every method answers nothing. */
    private static final HttpServletRequest DETACHED = (HttpServletRequest) Proxy.newProxyInstance(
            HttpServletRequest.class.getClassLoader(), new Class<?>[] {HttpServletRequest.class},
            (proxy, method, args) -> nothing(proxy, method, args));

    private final String requestUri;
    private final String contextPath;
    private final String servletPath;
    private final String pathInfo;
    private final String queryString;
    private final Principal userPrincipal;

    DetachableRequest(HttpServletRequest request) {
        super(request);
        this.requestUri = request.getRequestURI();
        this.contextPath = request.getContextPath();
        this.servletPath = request.getServletPath();
        this.pathInfo = request.getPathInfo();
        this.queryString = request.getQueryString();
        this.userPrincipal = request.getUserPrincipal();
    }

    /** Lets go of the container's request: call once the upgrade is done. */
    void detach() {
        setRequest(DETACHED);
    }

    @Override
    public String getRequestURI() {
        return requestUri;
    }

    @Override
    public String getContextPath() {
        return contextPath;
    }

    @Override
    public String getServletPath() {
        return servletPath;
    }

    @Override
    public String getPathInfo() {
        return pathInfo;
    }

    @Override
    public String getQueryString() {
        return queryString;
    }

    @Override
    public Principal getUserPrincipal() {
        return userPrincipal;
    }

    private static Object nothing(Object proxy, Method method, Object[] args) {
        Class<?> type = method.getReturnType();
        return switch (method.getName()) {
            case "toString" -> "a detached upgrade request";
            case "hashCode" -> System.identityHashCode(proxy);
            case "equals" -> proxy == args[0];
            default -> type == boolean.class ? Boolean.FALSE
                    : type == int.class ? Integer.valueOf(0)
                    : type == long.class ? Long.valueOf(0)
                    : type == Enumeration.class ? Collections.emptyEnumeration()
                    : type == Map.class ? Map.of()
                    : null;
        };
    }
}
