package io.weft.transport.websocket.examples;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.websocket.WebSocketServletMount;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;

/**
 * The WAR mount as the module README shows it: a listener of the web application (declared in web.xml or with
 * {@code @WebListener}) creates the Bayeux server and mounts websocket through the container's Jakarta WebSocket {@code ServerContainer}.
 */
public class WarListener implements ServletContextListener {
    private final ServerOptions options;

    public WarListener() {
        this(ServerOptions.defaults());
    }

    public WarListener(ServerOptions options) {
        this.options = options;
    }

    // snippet:war
    @Override
    public void contextInitialized(ServletContextEvent event) {
        BayeuxServer bayeux = BayeuxServer.create(options);
        event.getServletContext().setAttribute(BayeuxServer.class.getName(), bayeux);
        WebSocketServletMount.mount(event.getServletContext(), bayeux, "/cometd/*");
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        ((BayeuxServer) event.getServletContext().getAttribute(BayeuxServer.class.getName())).close();
    }
    // end:war
}
