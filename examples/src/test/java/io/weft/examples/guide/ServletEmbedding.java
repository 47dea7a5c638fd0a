package io.weft.examples.guide;

import io.weft.server.api.BayeuxServer;
import io.weft.transport.longpoll.LongPollingServlet;
import io.weft.transport.websocket.WebSocketServletMount;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.ee11.websocket.jakarta.server.config.JakartaWebSocketServletContainerInitializer;
import org.eclipse.jetty.server.Server;

/** The user guide's "Servlet application" snippet: both transports in an embedded ee11 Servlet context. */
public final class ServletEmbedding {
    private ServletEmbedding() {
    }

    /** Mounts long-polling (a Servlet) and websocket on {@code /cometd/*} of a Servlet context, as the guide shows. */
    public static void mount(Server server, BayeuxServer bayeux) {
        // tag::servlet[]
        ServletContextHandler context = new ServletContextHandler("/");
        ServletHolder polling = new ServletHolder(new LongPollingServlet(bayeux));
        polling.setAsyncSupported(true); // a held /meta/connect keeps no thread
        context.addServlet(polling, "/cometd/*");
        JakartaWebSocketServletContainerInitializer.configure(context, null); // Jetty's Jakarta WebSocket container
        WebSocketServletMount.mount(context.getServletContext(), bayeux, "/cometd/*");
        server.setHandler(context);
        // end::servlet[]
    }
}
