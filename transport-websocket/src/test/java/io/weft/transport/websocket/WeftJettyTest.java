package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link WeftJetty}: Weft on one path of an embedded Jetty server, in front of the application's own handler. */
@Timeout(30)
class WeftJettyTest {
    private static final String HANDSHAKE = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
            + "\"supportedConnectionTypes\":[\"long-polling\"]}]";

    @RegisterExtension
    static final Clients clients = new Clients();

    private final BayeuxServer bayeux = BayeuxServer.create(ServerOptions.defaults());
    private final Server jetty = new Server();
    private final ServerConnector connector = new ServerConnector(jetty);

    WeftJettyTest() {
        connector.setHost("127.0.0.1");
        jetty.addConnector(connector);
    }

    @AfterEach
    void stop() throws Exception {
        try {
            jetty.stop();
        } finally {
            bayeux.close();
        }
    }

    private URI uri(String scheme, String path) {
        return URI.create(scheme + "://127.0.0.1:" + connector.getLocalPort() + path);
    }

    private Map<String, Object> handshakeOverHttp(String path) throws Exception {
        ContentResponse response = clients.http().POST(uri("http", path))
                .body(new StringRequestContent("application/json", HANDSHAKE)).send();
        assertEquals(200, response.getStatus(), response.getContentAsString());
        return Json.array(response.getContentAsString()).get(0);
    }

    @Test
    void oneCallServesTheThreeConnectionTypesInFrontOfTheApplication() throws Exception {
        jetty.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                response.write(true, StandardCharsets.UTF_8.encode("application"), callback);
                return true;
            }
        });
        WebSocketHandler webSocket = WeftJetty.mount(jetty, bayeux, "/cometd");
        AtomicInteger seenInFront = new AtomicInteger();
        jetty.insertHandler(new Handler.Wrapper() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                seenInFront.incrementAndGet();
                return super.handle(request, response, callback);
            }
        });
        jetty.start();

        assertEquals("application", clients.http().GET(uri("http", "/cometdx")).getContentAsString());
        Map<String, Object> reply = handshakeOverHttp("/cometd");
        assertEquals(true, reply.get("successful"), reply.toString());
        assertTrue(((List<?>) reply.get("supportedConnectionTypes")).containsAll(
                List.of("websocket", "long-polling", "callback-polling")), reply.toString());
        ContentResponse jsonp = clients.http().GET(uri("http", "/cometd/handshake?jsonp=cb&message="
                + URLEncoder.encode(HANDSHAKE, StandardCharsets.UTF_8)));
        assertTrue(jsonp.getContentAsString().startsWith("cb(["), jsonp.getContentAsString());
        try (ScriptedClient client = new ScriptedClient(RawSocket.connect(clients.webSocket(), uri("ws", "/cometd")))) {
            assertEquals(true, client.handshake().get("successful"));
            assertEquals(1, webSocket.openSockets());
        }
        assertEquals(4, seenInFront.get(), "a handler inserted after the mount sees every request first");
    }

    @Test
    void withoutWebSocketHandshakesDoNotOfferItAndUpgradesAreNotTaken() throws Exception {
        WeftJetty.mountWithoutWebSocket(jetty, bayeux, "/cometd");
        jetty.start();

        Map<String, Object> reply = handshakeOverHttp("/cometd");
        assertEquals(true, reply.get("successful"), reply.toString());
        assertFalse(((List<?>) reply.get("supportedConnectionTypes")).contains("websocket"), reply.toString());
        assertThrows(ExecutionException.class, () -> RawSocket.connect(clients.webSocket(), uri("ws", "/cometd")));
        assertEquals(404, clients.http().GET(uri("http", "/elsewhere")).getStatus());
    }

    @Test
    void atTheRootWeftTakesEveryPath() throws Exception {
        WeftJetty.mount(jetty, bayeux, "/");
        jetty.start();

        assertEquals(true, handshakeOverHttp("/").get("successful"));
        assertEquals(true, handshakeOverHttp("/handshake").get("successful"));
        try (ScriptedClient client = new ScriptedClient(RawSocket.connect(clients.webSocket(), uri("ws", "/")))) {
            assertEquals(true, client.handshake().get("successful"));
        }
    }

    @Test
    void aPathThatIsNotOneIsRefusedByName() {
        for (String path : List.of("", "cometd", "/cometd/", "/cometd/*")) {
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                    () -> WeftJetty.mount(jetty, bayeux, path));
            assertTrue(x.getMessage().endsWith(": " + path), x.getMessage());
        }
        assertEquals(null, jetty.getHandler(), "nothing was mounted");
    }
}
