package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ClientRequest;
import io.weft.server.api.Limit;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerSession;
import io.weft.server.testing.Await;
import io.weft.server.testing.ScriptedClient;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the Jakarta mount does before and around the upgrade, in a real Tomcat 11 (the behaviour suite covers the
 * conversation): the application's login filter first, the browser cookie (from HTTP, never the 101), the origin check, the
 * upgrade request's copy for the security policy (the logged-in user an authorizer refuses by name), and the bounds
 * Tomcat enforces for Weft (over {@code maxMessageSize}: 1009, counted).
 */
@Timeout(30)
class TomcatMountTest {
    @RegisterExtension
    static final Clients clients = new Clients();
    private TomcatServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = TomcatServer.start(context -> {
            // as web.xml declares a filter: an authentication filter standing in for Spring Security's
            FilterDef login = new FilterDef();
            login.setFilterName("login");
            login.setFilter(new LoginFilter());
            login.setAsyncSupported("true");
            context.addFilterDef(login);
            FilterMap mapping = new FilterMap();
            mapping.setFilterName("login");
            mapping.addURLPattern("/*");
            context.addFilterMap(mapping);
        });
    }

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    /** Logs in the user a request names in {@code X-User} (a stand-in for a real login), and refuses {@code X-User: mallory}. */
    private static final class LoginFilter extends HttpFilter {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            String user = request.getHeader("X-User");
            if ("mallory".equals(user)) {
                response.sendError(HttpServletResponse.SC_FORBIDDEN, "not you");
                return;
            }
            chain.doFilter(user == null ? request : new HttpServletRequestWrapper(request) {
                @Override
                public Principal getUserPrincipal() {
                    return () -> user;
                }
            }, response);
        }
    }

    private RawSocket loggedIn(String user) throws Exception {
        RawSocket socket = new RawSocket();
        ClientUpgradeRequest request = new ClientUpgradeRequest();
        request.setHeader("X-User", user);
        request.setHeader("Cookie", "BAYEUX_BROWSER=" + user);
        clients.webSocket().connect(socket, server.wsUri(), request).get(5, TimeUnit.SECONDS);
        return socket;
    }

    @Test
    void theApplicationsLoginFilterSeesTheUpgradeFirstAndAnAuthorizerRefusesByTheUsersName() throws Exception {
        server.bayeux().setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canSubscribe(BayeuxServer bayeux, ServerSession session, ChannelId channel,
                    Message message) {
                Principal user = session.getRequest() == null ? null : session.getRequest().getUserPrincipal();
                return user != null && channel.toString().equals("/user/" + user.getName());
            }
        });
        try (ScriptedClient alice = new ScriptedClient(loggedIn("alice"))) {
            alice.handshake();
            assertEquals("alice", server.bayeux().getSession(alice.clientId()).getRequest().getUserPrincipal()
                    .getName());
            assertEquals(true, alice.subscribe("/user/alice").get("successful"));
            Map<String, Object> refused = alice.subscribe("/user/bob");
            assertEquals(false, refused.get("successful"), refused.toString());
            assertEquals("403::subscribe_denied", refused.get("error"), refused.toString());
        }
        ExecutionException refused = assertThrows(ExecutionException.class, () -> loggedIn("mallory"));
        assertEquals(403, OriginTest.refusedWith(refused), "the login filter answered the upgrade before Weft");
    }

    /** The 101 never sets the browser cookie (BrowserBindingTest says why); the HTTP handshake's reply does. */
    @Test
    void theBrowserCookieComesWithTheHttpHandshakeNeverWithThe101() throws Exception {
        try (RawSocket socket = RawSocket.connect(clients.webSocket(), server.wsUri())) {
            assertEquals(List.of(), socket.setCookies(), "a browser without one gets none from a socket");
        }
        try (RawSocket socket = RawSocket.connect(clients.webSocket(), server.wsUri(), "BAYEUX_BROWSER=known")) {
            assertEquals(List.of(), socket.setCookies(), "a browser that has one keeps it");
        }
        ContentResponse handshake = clients.http().newRequest(server.httpUri()).method("POST")
                .body(new StringRequestContent("application/json", "[{\"channel\":\"/meta/handshake\","
                        + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]"))
                .send();
        List<String> cookies = handshake.getHeaders().getValuesList("Set-Cookie");
        assertEquals(1, cookies.size(), cookies.toString());
        assertTrue(cookies.get(0).startsWith("BAYEUX_BROWSER="), cookies.get(0));
        assertTrue(cookies.get(0).contains("HttpOnly"), cookies.get(0));
    }

    @Test
    void theSecurityPolicySeesWhatTheUpgradeRequestCarried() throws Exception {
        try (ScriptedClient client = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri(),
                "BAYEUX_BROWSER=b1; theme=dark"))) {
            client.handshake();
            ClientRequest upgrade = server.bayeux().getSession(client.clientId()).getRequest();
            assertEquals("dark", upgrade.getCookie("theme"));
            assertEquals("127.0.0.1", upgrade.getRemoteAddress().getAddress().getHostAddress());
            assertEquals(null, upgrade.getHeader("Sec-WebSocket-Key"), "the handshake's own headers are not kept");
        }
    }

    @Test
    void aForeignOriginIsRefusedWith403() {
        ClientUpgradeRequest request = new ClientUpgradeRequest();
        request.setHeader("Origin", "https://evil.example");
        ExecutionException refused = assertThrows(ExecutionException.class, () -> clients.webSocket()
                .connect(new OriginTest.Quiet(), server.wsUri(), request).get(5, TimeUnit.SECONDS));
        assertEquals(403, OriginTest.refusedWith(refused));
    }

    @Test
    void aMessageUpToMaxMessageSizeIsAcceptedBeyondTomcatsOwnDefault() throws Exception {
        // Tomcat's default text buffer is 8 KiB; maxMessageSize (64 KiB here) is what counts.
        try (ScriptedClient client = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri(),
                "BAYEUX_BROWSER=large"))) {
            client.handshake();
            client.connect();
            client.subscribe("/large");
            String data = "y".repeat(60_000);
            assertEquals(true, client.publish("/large", data).get("successful"));
            client.awaitDelivery("/large", data);
        }
    }

    @Test
    void aMessageOverMaxMessageSizeClosesTheSocketWith1009AndIsCounted() throws Exception {
        try (RawSocket socket = RawSocket.connect(clients.webSocket(), server.wsUri(), "BAYEUX_BROWSER=big")) {
            socket.send("[{\"channel\":\"/x\",\"data\":\"" + "x".repeat(70_000) + "\"}]");
            assertEquals(1009, socket.awaitClose(10).code());
        }
        // The server side learns of the close as the client does, on its own thread.
        Await.until(Duration.ofSeconds(5), () -> server.bayeux().getRefusals().get(Limit.MESSAGE_SIZE), n -> n > 0,
                "the refusal was counted");
        assertEquals(1L, server.bayeux().getRefusals().get(Limit.MESSAGE_SIZE));
    }

    @Test
    void aBinaryMessageClosesTheSocketWith1003() throws Exception {
        try (RawSocket socket = RawSocket.connect(clients.webSocket(), server.wsUri(), "BAYEUX_BROWSER=bin")) {
            socket.session().sendBinary(ByteBuffer.wrap(new byte[] {1, 2, 3}), Callback.NOOP);
            RawSocket.Closed closed = socket.awaitClose(10);
            assertEquals(1003, closed.code());
            assertTrue(closed.reason().contains("JSON text"), closed.reason());
        }
    }
}
