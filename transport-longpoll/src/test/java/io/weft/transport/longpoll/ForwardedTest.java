package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import io.weft.transport.longpoll.PollingServer.Mount;
import io.weft.transport.longpoll.testing.Browser;
import io.weft.transport.longpoll.testing.Reply;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.server.ForwardedRequestCustomizer;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Behind a reverse proxy that terminates TLS: where the server trusts the proxy
 * ({@link LongPollingConnectors#trustProxies}), the origin check, the cookie's Secure flag and the per-address bounds
 * use what the proxy forwarded; where it does not (no trust, or trust of another address), forwarded headers are the
 * client's word and change nothing. The tests' requests come from 127.0.0.1, the proxy's address here.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ForwardedTest {
    private static final String PUBLIC_HOST = "chat.example.com";
    private static final String PUBLIC_ORIGIN = "https://" + PUBLIC_HOST;
    @RegisterExtension
    static final SharedHttpClient HTTP = new SharedHttpClient();
    private PollingServer server;

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    /** Starts the server, trusting the proxies named (none: no trust at all). */
    private void start(Mount mount, ServerOptions options, String... trustedProxies) throws Exception {
        server = PollingServer.start(mount, options);
        if (trustedProxies.length > 0) {
            LongPollingConnectors.trustProxies(server.jetty(), trustedProxies);
        }
    }

    /** A browser's handshake as a proxy passes it on: the public origin, and where the client really is. */
    private Reply handshakeThroughProxy(String clientAddress) throws Exception {
        return handshake(PUBLIC_ORIGIN, Map.of("X-Forwarded-Proto", "https", "X-Forwarded-Host", PUBLIC_HOST,
                "X-Forwarded-For", clientAddress));
    }

    private Reply handshake(String origin, Map<String, String> forwarded) throws Exception {
        Browser browser = new Browser(HTTP.client(), server.uri());
        Request request = browser.post(Browser.HANDSHAKE).headers(h -> {
            if (origin != null) {
                h.put("Origin", origin);
            }
            forwarded.forEach(h::put);
        });
        return browser.send(request);
    }

    private static boolean successful(Reply reply) {
        return reply.status() == 200 && Boolean.TRUE.equals(reply.message().get("successful"));
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void aTrustedProxysForwardedOriginIsThisServersOwn(Mount mount) throws Exception {
        start(mount, ServerOptions.defaults(), "127.0.0.1");

        Reply reply = handshakeThroughProxy("203.0.113.7");

        assertTrue(successful(reply), reply.body());
        String cookie = reply.headers().get("Set-Cookie");
        assertTrue(cookie.contains("; Secure"), "the browser reached us over HTTPS: " + cookie);
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void forwardedHeadersFromAnUntrustedPeerChangeNothing(Mount mount) throws Exception {
        start(mount, ServerOptions.defaults());

        Reply reply = handshakeThroughProxy("203.0.113.7");

        assertEquals(403, reply.status(), "a page on another origin claiming to be forwarded: " + reply.body());
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void forwardedHeadersFromAPeerThatIsNotTheTrustedProxyChangeNothing(Mount mount) throws Exception {
        start(mount, ServerOptions.defaults(), "192.0.2.1", "10.0.0.0/8", "::1");

        Reply reply = handshakeThroughProxy("203.0.113.7");

        assertEquals(403, reply.status(), "127.0.0.1 is not one of the trusted proxies: " + reply.body());
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void aTrustedRangeCoversItsAddresses(Mount mount) throws Exception {
        start(mount, ServerOptions.defaults(), "127.0.0.0/8");

        assertTrue(successful(handshakeThroughProxy("203.0.113.7")));
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void sessionsAreCountedPerForwardedClientAddress(Mount mount) throws Exception {
        start(mount, ServerOptions.builder().maxSessionsPerAddress(1).build(), "127.0.0.1");

        assertTrue(successful(handshakeThroughProxy("203.0.113.7")));
        assertTrue(successful(handshakeThroughProxy("198.51.100.9")),
                "another client behind the same proxy is not counted against the first");
        Map<String, Object> refused = handshakeThroughProxy("203.0.113.7").message();
        assertEquals(false, refused.get("successful"), refused.toString());
        assertTrue(String.valueOf(refused.get("error")).contains("maxSessionsPerAddress"), refused.toString());
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void aClientCannotPickItsAddressThroughAProxyThatAppends(Mount mount) throws Exception {
        start(mount, ServerOptions.builder().maxSessionsPerAddress(1).build(), "127.0.0.1");

        // nginx's $proxy_add_x_forwarded_for: what the client sent, then the address the proxy saw
        assertTrue(successful(handshakeThroughProxy("192.0.2.50, 203.0.113.7")));
        Reply second = handshakeThroughProxy("192.0.2.51, 203.0.113.7");

        assertFalse(successful(second), "the same client, claiming another address: " + second.body());
        assertTrue(String.valueOf(second.message().get("error")).contains("maxSessionsPerAddress"), second.body());
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void theClientIsTheNearestAddressThatIsNotATrustedProxy(Mount mount) throws Exception {
        start(mount, ServerOptions.builder().maxSessionsPerAddress(1).build(), "127.0.0.0/8");

        // two trusted proxies in a row (127.0.0.5, then this test's 127.0.0.1): the client is before them
        assertTrue(successful(handshakeThroughProxy("192.0.2.50, 203.0.113.7, 127.0.0.5")));
        assertFalse(successful(handshakeThroughProxy("203.0.113.7, 127.0.0.5")), "counted as 203.0.113.7");
        assertTrue(successful(handshakeThroughProxy("203.0.113.8, 127.0.0.5")));
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void theStandardForwardedHeaderIsReadTheSameWay(Mount mount) throws Exception {
        start(mount, ServerOptions.builder().maxSessionsPerAddress(1).build(), "127.0.0.1");
        // (no Origin: Jetty takes a Forwarded host without a port to keep the connector's port, not 443)
        Reply first = handshake(null, Map.of("Forwarded",
                "for=192.0.2.50;proto=http;host=evil.example, for=\"203.0.113.7:4711\";proto=https;host=" + PUBLIC_HOST));
        Reply second = handshake(null, Map.of("Forwarded",
                "for=192.0.2.51, for=203.0.113.7;proto=https;host=" + PUBLIC_HOST));

        assertTrue(successful(first), first.body());
        assertTrue(first.headers().get("Set-Cookie").contains("; Secure"),
                "the proxy's element (https), not the client's (http): " + first.headers());
        assertFalse(successful(second), "the same client, behind another claim: " + second.body());
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void theForwardedHostKeepsThePublicPort(Mount mount) throws Exception {
        start(mount, ServerOptions.defaults(), "127.0.0.1");
        String origin = PUBLIC_ORIGIN + ":8443";
        Map<String, String> withPort = new LinkedHashMap<>(Map.of("X-Forwarded-Proto", "https",
                "X-Forwarded-For", "203.0.113.7"));

        withPort.put("X-Forwarded-Host", PUBLIC_HOST + ":8443"); // nginx: $http_host
        assertTrue(successful(handshake(origin, withPort)));
        withPort.put("X-Forwarded-Host", PUBLIC_HOST);
        withPort.put("X-Forwarded-Port", "8443"); // nginx: $server_port
        assertTrue(successful(handshake(origin, withPort)));
        withPort.remove("X-Forwarded-Port"); // nginx: $host alone drops the port, and the page's origin is refused
        assertEquals(403, handshake(origin, withPort).status());
    }

    @Test
    void trustingAProxyFailsRatherThanDoNothing() throws Exception {
        Server empty = new Server();
        IllegalStateException noConnector = assertThrows(IllegalStateException.class,
                () -> LongPollingConnectors.trustProxies(empty, "127.0.0.1"));
        assertTrue(noConnector.getMessage().contains("add its connectors first"), noConnector.getMessage());

        Server server = new Server();
        server.addConnector(new ServerConnector(server, new HttpConnectionFactory(
                LongPollingConnectors.httpConfiguration())));
        assertThrows(IllegalArgumentException.class, () -> LongPollingConnectors.trustProxies(server));
        assertThrows(IllegalArgumentException.class,
                () -> LongPollingConnectors.trustProxies(server, "proxy.example.com"));
        assertThrows(IllegalArgumentException.class, () -> LongPollingConnectors.trustProxies(server, "10.0.0.0/33"));

        ServerConnector trustsEveryone = (ServerConnector) server.getConnectors()[0];
        trustsEveryone.getConnectionFactory(HttpConnectionFactory.class).getHttpConfiguration()
                .addCustomizer(new ForwardedRequestCustomizer());
        IllegalStateException everyone = assertThrows(IllegalStateException.class,
                () -> LongPollingConnectors.trustProxies(server, "127.0.0.1"));
        assertTrue(everyone.getMessage().contains("ForwardedRequestCustomizer"), everyone.getMessage());
    }

    @Test
    void aSecondCallReplacesTheProxiesOfTheFirst() throws Exception {
        start(Mount.HANDLER, ServerOptions.defaults(), "192.0.2.1");
        assertEquals(403, handshakeThroughProxy("203.0.113.7").status());

        LongPollingConnectors.trustProxies(server.jetty(), "127.0.0.1");

        assertTrue(successful(handshakeThroughProxy("203.0.113.7")));
    }
}
