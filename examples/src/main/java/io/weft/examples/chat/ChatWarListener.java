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
 * {@code /cometd/*}, and mounts websocket on the same path through the container's Jakarta WebSocket
 * {@code ServerContainer}.
 *
 * <p>The container calls it on the thread that starts and stops the web application. Websocket needs a Servlet 6
 * container with Jakarta WebSocket: Tomcat 10.1+ and 11 as they come, Jetty 12 with its {@code ee11-websocket-jakarta}
 * module (the Jetty Maven plugin has it). Without it the chat still starts, over long-polling and callback-polling
 * only, and says so in one WARN line: this listener's, where the container lacks even the Jakarta WebSocket API (a
 * Jetty without that module: {@code mount} cannot link), or the mount's, when the context starts, where the API is
 * there but the context has no WebSocket container.
 *
 * <p>With the context parameter {@value #REDIS} ({@code redis://HOST:PORT}; unset by default), the application is
 * one node of a cluster: every node deployed with the same Redis shares the chat (cluster-redis's
 * {@code RedisBroker}, and {@link ChatRooms#installOnCluster}). A Redis that cannot be reached then fails the
 * application's start, naming the address.
 */
public class ChatWarListener implements ServletContextListener {
    /** The context parameter naming the cluster's Redis. Not {@code weft.*}: those are the server's options. */
    public static final String REDIS = "chat.redis";
    private static final Logger LOG = LoggerFactory.getLogger(ChatWarListener.class);
    private static final String ROOMS = ChatRooms.class.getName();

    public ChatWarListener() {
    }

    // tag::war[]
    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext context = event.getServletContext();
        // the defaults, and any weft.* context-param of web.xml (weft.timeout, weft.allowedOrigins, ...)
        BayeuxServer bayeux = BayeuxServer.create(ServletOptions.of(context));
        bayeux.addExtension(new AcknowledgedMessagesExtension());
        // one node of a cluster if the context-param chat.redis names its Redis (redis://HOST:PORT), else alone
        ChatRooms rooms = ChatCluster.install(bayeux, context.getInitParameter(REDIS));
        context.setAttribute(ROOMS, rooms); // to close with the application
        // the LongPollingServlet of web.xml finds the server here when it starts, after the listeners
        context.setAttribute(LongPollingServlet.BAYEUX_SERVER_ATTRIBUTE, bayeux);
        try {
            WebSocketServletMount.mount(context, bayeux, "/cometd/*");
        } catch (IllegalStateException | LinkageError noWebSocket) {
            // no Jakarta WebSocket API in the container (a Jetty without ee11-websocket-jakarta): clients fall back
            // to long-polling, which needs only Servlet 6
            LOG.warn("websocket is not available in {}: serving long-polling and callback-polling only ({})",
                    context.getServerInfo(), noWebSocket.toString());
        }
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        if (event.getServletContext().getAttribute(ROOMS) instanceof ChatRooms rooms) {
            rooms.close();
        }
        if (event.getServletContext().getAttribute(LongPollingServlet.BAYEUX_SERVER_ATTRIBUTE)
                instanceof BayeuxServer bayeux) {
            bayeux.close();
        }
    }
    // end::war[]
}
