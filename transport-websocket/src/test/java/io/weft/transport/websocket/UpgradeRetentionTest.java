package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Await;
import io.weft.server.testing.ScriptedClient;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.websocket.core.CoreSession;
import org.eclipse.jetty.websocket.core.ExtensionConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An open socket does not keep the HTTP/1.1 connection it was upgraded from (see {@code JettyFrameHandler}), and its
 * session still answers what the upgrade was.
 */
@Timeout(30)
class UpgradeRetentionTest {
    @RegisterExtension
    static final Clients clients = new Clients();

    @Test
    void openSocketLetsItsHttpConnectionBeCollected() throws Exception {
        try (EmbeddedServer server = EmbeddedServer.start()) {
            List<WeakReference<Connection>> httpConnections = new CopyOnWriteArrayList<>();
            server.connector().addEventListener(new Connection.Listener() {
                @Override
                public void onOpened(Connection connection) {
                    if (connection.getClass().getSimpleName().equals("HttpConnection")) {
                        httpConnections.add(new WeakReference<>(connection));
                    }
                }
            });
            try (ScriptedClient client = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()))) {
                client.handshake();
                client.connect();
                assertEquals(1, httpConnections.size());

                Await.until(Duration.ofSeconds(10), () -> {
                    System.gc();
                    return httpConnections.get(0).get() == null;
                }, "the upgraded HTTP/1.1 connection is no longer reachable");
                assertEquals(true, client.publish("/after/gc", "still working").get("successful"));
            }
        }
    }

    @Test
    void sessionStillAnswersWhatTheUpgradeWas() throws Exception {
        try (EmbeddedServer server = EmbeddedServer.start(ServerOptions.defaults());
                RawSocket socket = RawSocket.connect(clients.webSocket(), server.wsUri(), null, "permessage-deflate")) {
            server.awaitOpenSockets(1);
            CoreSession serverSide = server.accepted().get(0).session();
            assertEquals("/cometd", serverSide.getRequestURI().getPath());
            assertEquals("13", serverSide.getProtocolVersion());
            assertEquals(List.of("permessage-deflate"),
                    serverSide.getNegotiatedExtensions().stream().map(ExtensionConfig::getName).toList());
        }
    }
}
