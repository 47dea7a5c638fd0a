package io.weft.transport.websocket;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.websocket.examples.EmbeddedMount;
import java.net.URI;
import java.util.Collection;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;

/**
 * A Weft server on embedded Jetty, loopback, port 0: websocket upgrades on {@code /cometd/*}, and every other request
 * falls through to the next handler (a 404 until long-polling is there).
 */
final class EmbeddedServer implements AutoCloseable {
    static final String PATH = "/cometd";

    private final BayeuxServer bayeux;
    private final Server jetty;
    private final WebSocketUpgradeHandler upgrades;

    private EmbeddedServer(ServerOptions options) throws Exception {
        bayeux = BayeuxServer.create(options);
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        EmbeddedMount.mount(jetty, bayeux, new NotFound());
        upgrades = (WebSocketUpgradeHandler) jetty.getHandler();
        jetty.start();
    }

    static EmbeddedServer start(ServerOptions options) throws Exception {
        return new EmbeddedServer(options);
    }

    static EmbeddedServer start() throws Exception {
        return start(ServerOptions.defaults());
    }

    BayeuxServer bayeux() {
        return bayeux;
    }

    ServerConnector connector() {
        return (ServerConnector) jetty.getConnectors()[0];
    }

    int port() {
        return connector().getLocalPort();
    }

    URI wsUri() {
        return URI.create("ws://127.0.0.1:" + port() + PATH);
    }

    URI httpUri() {
        return URI.create("http://127.0.0.1:" + port() + PATH);
    }

    /** The server side of the open sockets. */
    Collection<Session> openSockets() {
        return upgrades.getServerWebSocketContainer().getOpenSessions();
    }

    @Override
    public void close() throws Exception {
        try {
            jetty.stop();
        } finally {
            bayeux.close();
        }
    }

    /** Stands in for the next handler: answers what the upgrade handler let through. */
    static final class NotFound extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            Response.writeError(request, response, callback, HttpStatus.NOT_FOUND_404, "fell through");
            return true;
        }
    }
}
