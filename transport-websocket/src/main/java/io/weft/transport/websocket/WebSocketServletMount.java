package io.weft.transport.websocket;

import io.weft.server.api.BayeuxServer;
import jakarta.servlet.ServletContext;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.websocket.server.JettyWebSocketServerContainer;
import org.eclipse.jetty.ee11.websocket.servlet.WebSocketUpgradeFilter;
import org.eclipse.jetty.websocket.core.server.WebSocketMappings;

/**
 * Mounts the {@code websocket} connection type in a web application (a WAR) deployed on Jetty 12 with the
 * {@code ee11-websocket-jetty} module, through its {@link JettyWebSocketServerContainer}.
 *
 * <p>Call {@link #mount} from the application's {@code ServletContextListener.contextInitialized}, on the thread
 * that starts the context. Non-upgrade requests on the same path reach the application's servlets (long-polling),
 * since Jetty's upgrade filter lets them through.
 *
 * <p>This is the only class of this module that needs the Jetty EE11 WebSocket classes; the module declares them
 * {@code provided} (the Jetty server supplies them), so embedded applications that never touch this class do not
 * need them on their class path.
 */
public final class WebSocketServletMount {
    private WebSocketServletMount() {
    }

    /**
     * Maps WebSocket upgrades on {@code pathSpec} (relative to the context, for example {@code /cometd/*}) to Bayeux
     * connections of {@code bayeux}. The endpoints belong to the context's {@link JettyWebSocketServerContainer}
     * (its open sessions, its session listeners) and go through its upgrade filter and core mappings.
     *
     * @throws IllegalStateException if the context has no Jetty WebSocket container (the {@code ee11-websocket-jetty}
     *     module is not enabled, or an embedded context was not configured with
     *     {@code JettyWebSocketServletContainerInitializer.configure})
     */
    public static void mount(ServletContext context, BayeuxServer bayeux, String pathSpec) {
        JettyWebSocketServerContainer container = JettyWebSocketServerContainer.getContainer(context);
        if (container == null) {
            throw new IllegalStateException("no Jetty WebSocket container in context '" + context.getContextPath()
                    + "': enable Jetty's ee11-websocket-jetty module, or call "
                    + "JettyWebSocketServletContainerInitializer.configure(context, null) when embedding");
        }
        ServletContextHandler handler = ServletContextHandler.getServletContextHandler(context);
        WebSocketMappings mappings = WebSocketMappings.ensureMappings(handler);
        WebSocketUpgradeFilter.ensureFilter(context);
        WebSocketTransport.of(bayeux).register(mappings, container, pathSpec, container::addBean);
    }
}
