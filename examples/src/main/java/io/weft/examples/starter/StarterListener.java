package io.weft.examples.starter;

import io.weft.server.api.BayeuxServer;
import io.weft.transport.longpoll.LongPollingServlet;
import io.weft.transport.longpoll.ServletOptions;
import io.weft.transport.websocket.WebSocketServletMount;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The starter WAR's listener, the skeleton to copy: it creates a Bayeux server with the default options (and any
 * {@code weft.*} context-param of {@code web.xml}), no security policy and no channels of its own, publishes it in
 * the servlet context for the {@link LongPollingServlet} that {@code web.xml} maps on {@code /cometd/*}
 * (long-polling and callback-polling), mounts websocket on the same path, and closes the server when the
 * application stops.
 *
 * <p>The container calls it on the thread that starts and stops the web application. Where the container cannot
 * host Weft's websocket transport, the application still starts, over long-polling and callback-polling only, and
 * says so in one WARN line.
 */
public class StarterListener implements ServletContextListener {
    private static final Logger LOG = LoggerFactory.getLogger(StarterListener.class);

    public StarterListener() {
    }

    // tag::starter[]
    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext context = event.getServletContext();
        BayeuxServer bayeux = BayeuxServer.create(ServletOptions.of(context));
        // your application's services, listeners and security policy go here, on the server API
        context.setAttribute(LongPollingServlet.BAYEUX_SERVER_ATTRIBUTE, bayeux);
        try {
            WebSocketServletMount.mount(context, bayeux, "/cometd/*");
        } catch (IllegalStateException | LinkageError noWebSocket) {
            // clients fall back to long-polling, which needs only Servlet 6
            LOG.warn("websocket is not available in {}: serving long-polling and callback-polling only ({})",
                    context.getServerInfo(), noWebSocket.toString());
        }
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        if (event.getServletContext().getAttribute(LongPollingServlet.BAYEUX_SERVER_ATTRIBUTE)
                instanceof BayeuxServer bayeux) {
            bayeux.close();
        }
    }
    // end::starter[]
}
