package io.weft.transport.websocket;

import io.weft.server.api.BayeuxServer;
import io.weft.transport.common.WebSockets;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContext;
import java.util.EnumSet;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mounts the {@code websocket} connection type in a web application: a WAR on any Servlet 6 container with Jakarta
 * WebSocket (Jetty 12 with its {@code ee11-websocket-jakarta} module, Tomcat 10.1+), or Spring Boot's embedded
 * Tomcat or Jetty.
 *
 * <p>Call {@link #mount} while the context initializes: from a {@code ServletContextListener} declared in
 * {@code web.xml} (or by annotation), a {@code ServletContainerInitializer}, or Spring Boot's
 * {@code ServletContextInitializer}. It adds a filter at the path, after the application's own filters (an
 * authentication filter sees an upgrade first), that upgrades WebSocket requests and lets every other request through
 * to the application's servlets (long-polling on the same path).
 *
 * <p>This class names no Jakarta WebSocket type itself, so that it loads where the container lacks that API (a Jetty
 * distribution without the {@code ee11-websocket-jakarta} module): there {@link #mount} says so and returns.
 */
public final class WebSocketServletMount {
    /** Where the Jakarta WebSocket specification has containers publish their {@code ServerContainer}. */
    static final String SERVER_CONTAINER = "jakarta.websocket.server.ServerContainer";
    private static final String FILTER_NAME = "weft-websocket";
    private static final Logger LOG = LoggerFactory.getLogger(WebSocketServletMount.class);

    private WebSocketServletMount() {
    }

    /**
     * Upgrades WebSocket requests on {@code pathSpec} (relative to the context, for example {@code /cometd/*}) to
     * Bayeux connections of {@code bayeux}, through the context's Jakarta WebSocket {@code ServerContainer}.
     *
     * <p>The container is looked for now, or when the context starts if it is not there yet. A context without one
     * (on Jetty: the {@code ee11-websocket-jakarta} module is not enabled, or an embedded context was not configured
     * with {@code JakartaWebSocketServletContainerInitializer.configure}) still starts: websocket is not offered to
     * clients, which use long-polling, and one WARN line says why.
     *
     * @throws IllegalStateException if websocket was already mounted in this context, or the context has started
     */
    public static void mount(ServletContext context, BayeuxServer bayeux, String pathSpec) {
        Objects.requireNonNull(pathSpec, "pathSpec");
        Objects.requireNonNull(bayeux, "bayeux");
        if (!hasWebSocketApi()) {
            LOG.warn("no Jakarta WebSocket API in context '{}' ({}): websocket is not served, clients use "
                    + "long-polling; on Jetty, enable the ee11-websocket-jakarta module", context.getContextPath(),
                    context.getServerInfo());
            return;
        }
        UpgradeFilter filter = UpgradeFilter.of(WebSockets.of(bayeux), context.getAttribute(SERVER_CONTAINER),
                UpgradeFilter.endpointPath(pathSpec));
        FilterRegistration.Dynamic registration = context.addFilter(FILTER_NAME, filter);
        if (registration == null) {
            throw new IllegalStateException("a filter named " + FILTER_NAME + " is already in context '"
                    + context.getContextPath() + "': mount websocket once per context");
        }
        registration.setAsyncSupported(true);
        // After the application's own filters: an authentication filter (Spring Security's, say) sees the upgrade
        // first, may refuse it, and the user it authenticates is the one the security policy sees.
        registration.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, pathSpec);
    }

    /** Whether this module's class loader sees the Jakarta WebSocket server API (the specification's interface). */
    private static boolean hasWebSocketApi() {
        try {
            Class.forName(SERVER_CONTAINER, false, WebSocketServletMount.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError missing) {
            return false;
        }
    }
}
