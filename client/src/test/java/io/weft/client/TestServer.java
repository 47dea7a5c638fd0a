package io.weft.client;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.websocket.WeftJetty;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** A Weft server on embedded Jetty, loopback, port 0, at {@code /cometd}: websocket upgrades and long-polling. */
final class TestServer implements AutoCloseable {
    static final String PATH = "/cometd";

    private final BayeuxServer bayeux;
    private final Server jetty;

    private TestServer(ServerOptions options, boolean webSocket) throws Exception {
        bayeux = BayeuxServer.create(options);
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        if (webSocket) {
            WeftJetty.mount(jetty, bayeux, PATH);
        } else {
            WeftJetty.mountWithoutWebSocket(jetty, bayeux, PATH);
        }
        jetty.start();
    }

    /** Both transports, with {@code options}. */
    static TestServer start(ServerOptions options) throws Exception {
        return new TestServer(options, true);
    }

    static TestServer start() throws Exception {
        return start(ServerOptions.defaults());
    }

    /** Long-polling only: WebSocket upgrades on the path are not served. */
    static TestServer withoutWebSocket() throws Exception {
        return new TestServer(ServerOptions.defaults(), false);
    }

    BayeuxServer bayeux() {
        return bayeux;
    }

    String url() {
        return "http://127.0.0.1:" + ((ServerConnector) jetty.getConnectors()[0]).getLocalPort() + PATH;
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
