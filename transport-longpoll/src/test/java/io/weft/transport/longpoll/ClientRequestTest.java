package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ClientRequest;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.longpoll.PollingServer.Mount;
import io.weft.transport.longpoll.testing.Browser;
import io.weft.transport.longpoll.testing.HttpWire;
import io.weft.transport.longpoll.testing.Reply;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.net.URI;
import java.security.Principal;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.ee11.servlet.FilterHolder;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What the handshake's HTTP request carried reaches the security policy, and stays readable from the session: headers,
 * cookies, the client's address, and, where the application authenticated the user (a servlet filter, as Spring
 * Security and container login do), the user and the HTTP session.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ClientRequestTest {
    @RegisterExtension
    static final SharedHttpClient HTTP = new SharedHttpClient();
    private PollingServer server;
    private Server jetty;
    private BayeuxServer bayeux;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (jetty != null) {
            jetty.stop();
        }
        if (bayeux != null) {
            bayeux.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void theHandshakesRequestIsSeenByThePolicyAndKeptWithTheSession(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        AtomicReference<ClientRequest> seen = new AtomicReference<>();
        server.bayeux().setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canHandshake(BayeuxServer server, ServerSession session, Message handshake) {
                seen.set(session.getRequest());
                return "t0k3n".equals(session.getRequest().getHeader("x-token"));
            }
        });
        Browser browser = new Browser(HTTP.client(), server.uri());

        Reply refused = browser.send(browser.post(Browser.HANDSHAKE));
        assertEquals("403::handshake_denied", refused.message().get("error"), refused.body());

        Reply accepted = browser.send(browser.post(Browser.HANDSHAKE).headers(h -> h
                .put("X-Token", "t0k3n").add("Cookie", "app=abc; theme=\"dark\"")));
        String clientId = (String) accepted.message().get("clientId");
        assertNotNull(clientId, accepted.body());

        ClientRequest request = seen.get();
        assertEquals("t0k3n", request.getHeader("X-TOKEN"));
        assertEquals(List.of("t0k3n"), request.getHeaders("x-token"));
        assertTrue(request.getHeaderNames().stream().anyMatch("X-Token"::equalsIgnoreCase), request.getHeaderNames()
                .toString());
        assertEquals("abc", request.getCookie("app"));
        assertEquals("dark", request.getCookie("theme"));
        assertNull(request.getCookie("absent"));
        assertTrue(request.getRemoteAddress().getAddress().isLoopbackAddress(), request.toString());
        assertFalse(request.isSecure());
        assertNull(request.getUserPrincipal());
        assertNull(request.getHttpSessionId());
        assertNull(request.getHttpSessionAttribute("user"));

        // long after the handshake's exchange ended, and another request came and went, the session still has it
        Reply connected = browser.send(browser.post("[{\"channel\":\"/meta/connect\",\"connectionType\":"
                + "\"long-polling\",\"clientId\":\"" + clientId + "\",\"advice\":{\"timeout\":0}}]"));
        assertEquals(true, connected.message().get("successful"), connected.body());
        assertEquals("t0k3n", server.bayeux().getSession(clientId).getRequest().getHeader("X-Token"));
    }

    /** The user a servlet filter authenticated, and the HTTP session it logged the user into. */
    private URI deployBehindLogin(String user) throws Exception {
        bayeux = BayeuxServer.create(ServerOptions.defaults());
        bayeux.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canSubscribe(BayeuxServer server, ServerSession session, ChannelId channel,
                    Message message) {
                // each user may subscribe to their own channel only, and admins to any
                Principal principal = session.getRequest().getUserPrincipal();
                return principal != null && (channel.toString().equals("/user/" + principal.getName())
                        || "admin".equals(session.getRequest().getHttpSessionAttribute("role")));
            }
        });
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/", ServletContextHandler.SESSIONS);
        Filter login = (request, response, chain) -> {
            HttpServletRequest http = (HttpServletRequest) request;
            http.getSession(true).setAttribute("role", "user");
            chain.doFilter(new HttpServletRequestWrapper(http) {
                @Override
                public Principal getUserPrincipal() {
                    return () -> user;
                }
            }, response);
        };
        FilterHolder filter = new FilterHolder(login);
        filter.setAsyncSupported(true);
        context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        ServletHolder servlet = new ServletHolder(new LongPollingServlet(bayeux));
        servlet.setAsyncSupported(true);
        context.addServlet(servlet, "/cometd/*");
        jetty.setHandler(context);
        jetty.start();
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/cometd");
    }

    @Test
    void anAuthorizerRefusesASubscriptionByTheLoggedInUsersName() throws Exception {
        ScriptedClient alice = HttpWire.client(new Browser(HTTP.client(), deployBehindLogin("alice")));
        alice.handshake();

        Map<String, Object> own = alice.subscribe("/user/alice");
        Map<String, Object> others = alice.subscribe("/user/bob");

        assertEquals(true, own.get("successful"), own.toString());
        assertEquals(false, others.get("successful"), others.toString());
        assertEquals("403::subscribe_denied", others.get("error"));
        ClientRequest request = bayeux.getSession(alice.clientId()).getRequest();
        assertEquals("alice", request.getUserPrincipal().getName());
        assertNotNull(request.getHttpSessionId());
        assertEquals("user", request.getHttpSessionAttribute("role"));
    }
}
