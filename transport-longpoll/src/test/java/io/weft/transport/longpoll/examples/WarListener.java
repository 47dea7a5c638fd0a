package io.weft.transport.longpoll.examples;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.longpoll.LongPollingServlet;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;

/**
 * The WAR's listener shown in the module README: it creates the Bayeux server with the application's options and
 * puts it where {@link LongPollingServlet} looks. Deployed from src/test/resources/webapp by {@link MountExamplesTest}.
 */
public final class WarListener implements ServletContextListener {
    // tag::listener[]
    @Override
    public void contextInitialized(ServletContextEvent event) {
        BayeuxServer bayeux = BayeuxServer.create(ServerOptions.builder().timeout(25_000).build());
        event.getServletContext().setAttribute(LongPollingServlet.BAYEUX_SERVER_ATTRIBUTE, bayeux);
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        ((BayeuxServer) event.getServletContext().getAttribute(LongPollingServlet.BAYEUX_SERVER_ATTRIBUTE)).close();
    }
    // end::listener[]
}
