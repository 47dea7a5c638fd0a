package io.weft.transport.longpoll.examples;

import io.weft.server.api.BayeuxServer;
import io.weft.transport.longpoll.LongPollingConnectors;
import io.weft.transport.longpoll.LongPollingHandler;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;

/** The embedded mount shown in the module README, compiled and run by {@link MountExamplesTest}. */
final class EmbeddedHandlerMount {
    private EmbeddedHandlerMount() {
    }

    static Server start(BayeuxServer bayeux, int port) throws Exception {
        // tag::handler[]
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server,
                new HttpConnectionFactory(LongPollingConnectors.httpConfiguration()));
        connector.setPort(port);
        server.addConnector(connector);

        ContextHandler cometd = new ContextHandler(new LongPollingHandler(bayeux), "/cometd");
        cometd.setAllowNullPathInContext(true); // clients post to /cometd itself: no redirect to /cometd/
        server.setHandler(cometd);
        server.start();
        // end::handler[]
        return server;
    }
}
