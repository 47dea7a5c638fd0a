package io.weft.transport.longpoll.examples;

import io.weft.server.api.BayeuxServer;
import io.weft.transport.longpoll.LongPollingConnectors;
import io.weft.transport.longpoll.LongPollingServlet;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** The Servlet mount in an embedded servlet context shown in the module README, run by {@link MountExamplesTest}. */
final class EmbeddedServletMount {
    private EmbeddedServletMount() {
    }

    static Server start(BayeuxServer bayeux, int port) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server,
                new HttpConnectionFactory(LongPollingConnectors.httpConfiguration()));
        connector.setPort(port);
        server.addConnector(connector);
        // tag::servlet[]
        ServletContextHandler context = new ServletContextHandler("/");
        ServletHolder cometd = new ServletHolder(new LongPollingServlet(bayeux));
        cometd.setAsyncSupported(true); // before addServlet: a held /meta/connect keeps no thread
        context.addServlet(cometd, "/cometd/*");
        server.setHandler(context);
        // end::servlet[]
        server.start();
        return server;
    }
}
