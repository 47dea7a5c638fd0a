package io.weft.transport.websocket;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Await;
import io.weft.transport.websocket.examples.EmbeddedMount;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A Weft server on embedded Jetty, loopback, port 0, mounted as the module README shows ({@link WeftJetty#mount}):
 * websocket upgrades on {@code /cometd/*}, and every other request on the path goes to long-polling.
 */
final class EmbeddedServer implements BayeuxHost {
    static final String PATH = "/cometd";

    private final BayeuxServer bayeux;
    private final Server jetty;
    private final WebSocketHandler upgrades;
    private final List<JettyFrameHandler> accepted = new CopyOnWriteArrayList<>();

    /** @param selectors the connector's selector threads, or -1 for Jetty's default (by the number of cores) */
    private EmbeddedServer(ServerOptions options, Consumer<ServerConnector> tune, int selectors) throws Exception {
        bayeux = BayeuxServer.create(options);
        jetty = new Server();
        ServerConnector connector = selectors < 0 ? new ServerConnector(jetty) : new ServerConnector(jetty, 1, selectors);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        tune.accept(connector);
        upgrades = EmbeddedMount.mount(jetty, bayeux);
        upgrades.onAccept(accepted::add);
        jetty.start();
    }

    static EmbeddedServer start(ServerOptions options) throws Exception {
        return new EmbeddedServer(options, connector -> { }, -1);
    }

    /** A server whose connector {@code tune} may change, once added, before it starts (socket buffer sizes, say). */
    static EmbeddedServer start(ServerOptions options, Consumer<ServerConnector> tune) throws Exception {
        return new EmbeddedServer(options, tune, -1);
    }

    /** As above, with {@code selectors} selector threads: one puts every connection on the same selector. */
    static EmbeddedServer start(ServerOptions options, Consumer<ServerConnector> tune, int selectors) throws Exception {
        return new EmbeddedServer(options, tune, selectors);
    }

    static EmbeddedServer start() throws Exception {
        return start(ServerOptions.defaults());
    }

    @Override
    public BayeuxServer bayeux() {
        return bayeux;
    }

    ServerConnector connector() {
        return (ServerConnector) jetty.getConnectors()[0];
    }

    int port() {
        return connector().getLocalPort();
    }

    @Override
    public URI wsUri() {
        return URI.create("ws://127.0.0.1:" + port() + PATH);
    }

    @Override
    public URI httpUri() {
        return URI.create("http://127.0.0.1:" + port() + PATH);
    }

    /** The server side of every socket accepted so far, oldest first. */
    List<JettyFrameHandler> accepted() {
        return accepted;
    }

    /** How many sockets the server side has open. */
    int openSockets() {
        return upgrades.openSockets();
    }

    /** Waits until the server side has this many sockets open (a closed socket has been told to the engine). */
    void awaitOpenSockets(int count) throws InterruptedException {
        Await.until(Duration.ofSeconds(5), this::openSockets, open -> open == count, count + " open sockets");
    }

    @Override
    public void close() throws Exception {
        try {
            jetty.stop();
        } finally {
            bayeux.close();
        }
    }
}
