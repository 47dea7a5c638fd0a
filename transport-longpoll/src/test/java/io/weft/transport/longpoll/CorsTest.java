package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import io.weft.transport.longpoll.PollingServer.Mount;
import io.weft.transport.longpoll.testing.Browser;
import io.weft.transport.longpoll.testing.Reply;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.http.HttpMethod;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Cross-origin requests: listed origins get CORS headers with credentials, any origin under {@code *} without. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CorsTest {
    private static final String APP = "https://app.example";
    @RegisterExtension
    static final SharedHttpClient HTTP = new SharedHttpClient();
    private PollingServer server;

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private Browser start(Mount mount, List<String> allowed) throws Exception {
        server = PollingServer.start(mount, ServerOptions.builder().allowedOrigins(allowed).build());
        return new Browser(HTTP.client(), server.uri());
    }

    private Request preflight(Browser browser, String origin) {
        return browser.prepare(HTTP.client().newRequest(server.uri()).method(HttpMethod.OPTIONS)
                .headers(h -> h.put("Origin", origin)
                        .put("Access-Control-Request-Method", "POST")
                        .put("Access-Control-Request-Headers", "content-type, x-token")));
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void preflightFromAnAllowedOriginIsAnswered(Mount mount) throws Exception {
        Browser browser = start(mount, List.of(APP));

        Reply reply = browser.send(preflight(browser, APP));

        assertEquals(200, reply.status());
        assertEquals(APP, reply.headers().get("Access-Control-Allow-Origin"));
        assertEquals("true", reply.headers().get("Access-Control-Allow-Credentials"));
        assertTrue(reply.headers().get("Access-Control-Allow-Methods").contains("POST"));
        assertEquals("content-type, x-token", reply.headers().get("Access-Control-Allow-Headers"));
        assertTrue(reply.headers().get("Vary").contains("Origin"));
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void requestFromAnAllowedOriginCarriesCorsHeadersAndTheCookie(Mount mount) throws Exception {
        Browser browser = start(mount, List.of(APP));

        Reply reply = browser.send(browser.post(Browser.HANDSHAKE).headers(h -> h.put("Origin", APP)));

        assertEquals(true, reply.message().get("successful"));
        assertEquals(APP, reply.headers().get("Access-Control-Allow-Origin"));
        assertEquals("true", reply.headers().get("Access-Control-Allow-Credentials"));
        assertTrue(browser.cookie() != null);
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void anyOriginIsAllowedWithAStarButWithoutCredentials(Mount mount) throws Exception {
        Browser browser = start(mount, List.of("*", APP));

        Reply reply = browser.send(preflight(browser, "http://elsewhere.example:8080"));
        Reply post = browser.send(browser.post(Browser.HANDSHAKE)
                .headers(h -> h.put("Origin", "http://elsewhere.example")));
        Reply listed = browser.send(browser.post(Browser.HANDSHAKE).headers(h -> h.put("Origin", APP)));

        assertEquals(200, reply.status());
        assertEquals("http://elsewhere.example:8080", reply.headers().get("Access-Control-Allow-Origin"));
        assertNull(reply.headers().get("Access-Control-Allow-Credentials"), "any site, the user's cookies: never");
        assertEquals(true, post.message().get("successful"));
        assertNull(post.headers().get("Access-Control-Allow-Credentials"));
        assertEquals("true", listed.headers().get("Access-Control-Allow-Credentials"), "a listed origin has them");
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void otherOriginsAreRefused(Mount mount) throws Exception {
        Browser browser = start(mount, List.of(APP));

        Reply preflight = browser.send(preflight(browser, "https://evil.example"));
        Reply post = browser.send(browser.post(Browser.HANDSHAKE)
                .headers(h -> h.put("Origin", "https://evil.example")));

        assertEquals(403, preflight.status());
        assertNull(preflight.headers().get("Access-Control-Allow-Origin"));
        assertEquals(403, post.status());
        assertTrue(post.body().startsWith("origin not allowed"), post.body());
        assertNull(browser.cookie(), "no session, no cookie");
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void sameOriginRequestsNeedNoConfiguration(Mount mount) throws Exception {
        Browser browser = start(mount, List.of());

        Reply reply = browser.send(browser.post(Browser.HANDSHAKE).headers(h -> h.put("Origin", server.origin())));

        assertEquals(true, reply.message().get("successful"));
        assertNull(reply.headers().get("Access-Control-Allow-Origin"));
    }
}
