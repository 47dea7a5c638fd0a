package io.weft.examples.chat;

import io.weft.server.api.BayeuxServer;
import io.weft.server.ext.AcknowledgedMessagesExtension;
import io.weft.transport.longpoll.LongPollingServlet;
import io.weft.transport.longpoll.ServletOptions;
import io.weft.transport.websocket.WebSocketServletMount;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chat demo as a web application: declared in the WAR's {@code web.xml}, it creates the Bayeux server with the
 * chat's services, publishes it in the servlet context for the {@link LongPollingServlet} mapped on
 * {@code /cometd/*}, and mounts websocket on the same path through Jetty's WebSocket container.
 *
 * <p>The container calls it on the thread that starts and stops the web application. Websocket needs a Jetty 12
 * server with the {@code ee11-websocket-jetty} module (the Jetty Maven plugin has it); in any other container (Tomcat)
 * the chat still starts, over long-polling and callback-polling only, and says so in one WARN line.
 */
public class ChatWarListener implements ServletContextListener {
    private static final Logger LOG = LoggerFactory.getLogger(ChatWarListener.class);

    public ChatWarListener() {
    }

    // tag::war[]
    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext context = event.getServletContext();
        // the defaults, and any weft.* context-param of web.xml (weft.timeout, weft.allowedOrigins, ...)
        BayeuxServer bayeux = BayeuxServer.create(ServletOptions.of(context));
        bayeux.addExtension(new AcknowledgedMessagesExtension());
        ChatRooms.install(bayeux);
        // the LongPollingServlet of web.xml finds the server here when it starts, after the listeners
        context.setAttribute(LongPollingServlet.BAYEUX_SERVER_ATTRIBUTE, bayeux);
        try {
            WebSocketServletMount.mount(context, bayeux, "/cometd/*");
        } catch (IllegalStateException | LinkageError notJetty) {
            // not Jetty 12 with its WebSocket module: clients fall back to long-polling, which needs only Servlet 6
            LOG.warn("websocket is not available in {}: serving long-polling and callback-polling only ({})",
                    context.getServerInfo(), notJetty.toString());
        }
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        if (event.getServletContext().getAttribute(LongPollingServlet.BAYEUX_SERVER_ATTRIBUTE)
                instanceof BayeuxServer bayeux) {
            bayeux.close();
        }
    }
    // end::war[]
}
