package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.websocket.examples.WarListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.ee11.websocket.jakarta.server.config.JakartaWebSocketServletContainerInitializer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.websocket.api.ExtensionConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The WAR mount: a web application on Jetty's ee11 Servlet container, its listener mounting websocket through
 * the Jakarta {@code ServerContainer}, and a servlet (standing in for long-polling) on the same path.
 */
@Timeout(30)
class ServletMountTest {
    @RegisterExtension
    static final Clients clients = new Clients();
    private Server jetty;
    private ServletContextHandler context;

    @AfterEach
    void stop() throws Exception {
        if (jetty != null) {
            jetty.stop();
        }
    }

    /** A web application at {@code /app}, deployed as Jetty deploys a WAR with the ee11-websocket-jakarta module. */
    private void deploy(ServerOptions options, boolean withWebSocketModule) throws Exception {
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        jetty.addConnector(connector);
        context = new ServletContextHandler("/app");
        ServletHolder polling = new ServletHolder(new StandIn());
        polling.setAsyncSupported(true);
        context.addServlet(polling, "/cometd/*");
        if (withWebSocketModule) {
            JakartaWebSocketServletContainerInitializer.configure(context, null);
        }
        context.addEventListener(new WarListener(options));
        jetty.setHandler(context);
        jetty.start();
    }

    private URI uri(String scheme) {
        int port = ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
        return URI.create(scheme + "://127.0.0.1:" + port + "/app/cometd");
    }

    private BayeuxServer bayeux() {
        return (BayeuxServer) context.getServletContext().getAttribute(BayeuxServer.class.getName());
    }

    @Test
    void conversationOverTheServletMount() throws Exception {
        deploy(ServerOptions.defaults(), true);
        try (ScriptedClient alice = new ScriptedClient(
                        RawSocket.connect(clients.webSocket(), uri("ws"), "BAYEUX_BROWSER=alice"));
                ScriptedClient bob = new ScriptedClient(RawSocket.connect(clients.webSocket(), uri("ws")))) {
            assertEquals(List.of(), ((RawSocket) alice.wire()).setCookies());
            assertEquals(List.of(), ((RawSocket) bob.wire()).setCookies(), "a 101 never sets the browser cookie");
            alice.handshake();
            alice.connect();
            alice.subscribe("/chat/room7");
            bob.handshake();
            bob.connect();
            bob.publish("/chat/room7", "through the servlet container");
            alice.awaitDelivery("/chat/room7", "through the servlet container");
            assertNotNull(bayeux().getSession(alice.clientId()));

            // The session is bound to alice's browser on this mount too.
            try (ScriptedClient thief = new ScriptedClient(
                    RawSocket.connect(clients.webSocket(), uri("ws"), "BAYEUX_BROWSER=thief"))) {
                assertEquals("402::session_unknown", thief.resume(alice.clientId()).connect().get("error"));
            }
        }
    }

    @Test
    void aFrameAboveJettysDefaultLimitIsTakenUpToMaxMessageSize() throws Exception {
        // A single frame above 64 KiB (a common default frame limit) within maxMessageSize is read whole.
        deploy(ServerOptions.builder().maxMessageSize(200_000).build(), true);
        try (PlainWebSocket peer = PlainWebSocket.connect(uri("ws"), 0)) {
            peer.sendText("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":"
                    + "[\"websocket\"],\"ext\":{\"padding\":\"" + "z".repeat(100_000) + "\"}}]");
            PlainWebSocket.Frame reply = peer.readFrame();
            assertEquals(PlainWebSocket.TEXT, reply.opcode(), "one 100 KB frame, read whole");
            assertEquals(true, Json.array(reply.text()).get(0).get("successful"), reply.text());
        }
    }

    @Test
    void requestsThatAreNotUpgradesReachTheServlets() throws Exception {
        deploy(ServerOptions.defaults(), true);
        ContentResponse response = clients.http().GET(uri("http"));
        assertEquals(200, response.getStatus());
        assertEquals("long-polling answers here", response.getContentAsString());
    }

    @Test
    void deflateSwitchedOffOnTheServletMount() throws Exception {
        deploy(ServerOptions.builder().webSocketDeflate(false).build(), true);
        try (RawSocket socket = RawSocket.connect(clients.webSocket(), uri("ws"), null, "permessage-deflate")) {
            List<String> negotiated = socket.session().getUpgradeResponse().getExtensions().stream()
                    .map(ExtensionConfig::getName).toList();
            assertEquals(List.of(), negotiated);
        }
    }

    @Test
    void withoutAJakartaWebSocketContainerTheApplicationServesLongPollingAndSaysWhyOnce() throws Exception {
        try (LogCapture log = new LogCapture()) {
            deploy(ServerOptions.defaults(), false);
            List<String> warnings = log.from(UpgradeFilter.class);
            assertEquals(1, warnings.size(), warnings.toString());
            assertTrue(warnings.get(0).contains("ee11-websocket-jakarta"), warnings.get(0));
        }
        Map<String, Object> handshake = new ScriptedClient(InMemoryTransport.polling(bayeux()), "b").handshake();
        assertFalse(((List<?>) handshake.get("supportedConnectionTypes")).contains("websocket"), handshake.toString());
        ContentResponse response = clients.http().GET(uri("http"));
        assertEquals("long-polling answers here", response.getContentAsString());
        assertThrows(Exception.class, () -> RawSocket.connect(clients.webSocket(), uri("ws")).close(),
                "an upgrade is not accepted");
    }

    @Test
    void theContainerIsFoundWhenTheContextStartsIfItWasNotThereAtMountTime() throws Exception {
        // Spring Boot's Tomcat starts its WebSocket support after the initializers that mount: the order here.
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        jetty.addConnector(connector);
        context = new ServletContextHandler("/app");
        context.addServlet(new ServletHolder(new StandIn()), "/cometd/*");
        context.addEventListener(new WarListener(ServerOptions.defaults()));
        JakartaWebSocketServletContainerInitializer.configure(context, null);
        jetty.setHandler(context);
        jetty.start();
        try (ScriptedClient client = new ScriptedClient(RawSocket.connect(clients.webSocket(), uri("ws")))) {
            assertEquals(true, client.handshake().get("successful"));
        }
    }

    /** Stands in for the long-polling servlet. */
    public static final class StandIn extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.getWriter().write("long-polling answers here");
        }
    }
}
