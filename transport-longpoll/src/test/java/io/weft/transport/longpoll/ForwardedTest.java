package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import io.weft.transport.longpoll.PollingServer.Mount;
import io.weft.transport.longpoll.testing.Browser;
import io.weft.transport.longpoll.testing.Reply;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.server.ForwardedRequestCustomizer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Behind a reverse proxy that terminates TLS: where the deployment trusts the proxy (Jetty's
 * {@link ForwardedRequestCustomizer}), the origin check, the cookie's Secure flag and the per-address bounds use what
 * the proxy forwarded; where it does not, forwarded headers are the client's word and change nothing.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ForwardedTest {
    private static final String PUBLIC_ORIGIN = "https://chat.example.com";
    @RegisterExtension
    static final SharedHttpClient HTTP = new SharedHttpClient();
    private PollingServer server;

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private void start(Mount mount, boolean trustProxy, ServerOptions options) throws Exception {
        HttpConfiguration http = PollingServer.httpConfiguration();
        if (trustProxy) {
            http.addCustomizer(new ForwardedRequestCustomizer());
        }
        server = PollingServer.start(mount, options, 30_000, new QueuedThreadPool(), http, true);
    }

    /** A browser's handshake as the proxy passes it on: the public origin, and where the client really is. */
    private Reply handshakeThroughProxy(String clientAddress) throws Exception {
        Browser browser = new Browser(HTTP.client(), server.uri());
        Request request = browser.post(Browser.HANDSHAKE).headers(h -> h
                .put("Origin", PUBLIC_ORIGIN)
                .put("X-Forwarded-Proto", "https")
                .put("X-Forwarded-Host", "chat.example.com")
                .put("X-Forwarded-For", clientAddress));
        return browser.send(request);
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void aTrustedProxysForwardedOriginIsThisServersOwn(Mount mount) throws Exception {
        start(mount, true, ServerOptions.defaults());

        Reply reply = handshakeThroughProxy("203.0.113.7");

        assertEquals(200, reply.status(), reply.body());
        assertEquals(true, reply.message().get("successful"), reply.body());
        String cookie = reply.headers().get("Set-Cookie");
        assertTrue(cookie.contains("; Secure"), "the browser reached us over HTTPS: " + cookie);
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void forwardedHeadersFromAnUntrustedPeerChangeNothing(Mount mount) throws Exception {
        start(mount, false, ServerOptions.defaults());

        Reply reply = handshakeThroughProxy("203.0.113.7");

        assertEquals(403, reply.status(), "a page on another origin claiming to be forwarded: " + reply.body());
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void sessionsAreCountedPerForwardedClientAddress(Mount mount) throws Exception {
        start(mount, true, ServerOptions.builder().maxSessionsPerAddress(1).build());

        assertEquals(true, handshakeThroughProxy("203.0.113.7").message().get("successful"));
        assertEquals(true, handshakeThroughProxy("198.51.100.9").message().get("successful"),
                "another client behind the same proxy is not counted against the first");
        Map<String, Object> refused = handshakeThroughProxy("203.0.113.7").message();
        assertEquals(false, refused.get("successful"), refused.toString());
        assertTrue(String.valueOf(refused.get("error")).contains("maxSessionsPerAddress"), refused.toString());
    }
}
