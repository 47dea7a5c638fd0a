package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Await;
import io.weft.server.testing.Json;
import io.weft.transport.longpoll.PollingServer.Mount;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code callback-polling}: the JSONP GET the official JavaScript client sends ({@code ?jsonp=name&message=batch}),
 * and the form POST older clients send, each answered {@code name([...])}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CallbackPollingTest {
    @RegisterExtension
    static final SharedHttpClient HTTP = new SharedHttpClient();
    private PollingServer server;

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    /** A browser page that talks JSONP through script tags named {@code _cometd_jsonp_N}, as the JS client does. */
    private static final class Page {
        private final Browser browser;
        private final boolean form;
        private int callbacks;
        private String clientId;

        Page(Browser browser, boolean form) {
            this.browser = browser;
            this.form = form;
        }

        CompletableFuture<Reply> sendAsync(String batch) {
            String callback = "_cometd_jsonp_" + callbacks++;
            return browser.sendAsync(form ? browser.jsonpForm(callback, batch) : browser.jsonp(callback, batch))
                    .thenApply(reply -> unwrap(callback, reply));
        }

        List<Map<String, Object>> send(String batch) throws Exception {
            return sendAsync(batch).get(10, TimeUnit.SECONDS).messages();
        }

        /** Checks the script a browser would run and returns the JSON array passed to the callback. */
        private static Reply unwrap(String callback, Reply reply) {
            assertEquals(200, reply.status(), reply.body());
            assertTrue(reply.contentType().startsWith("text/javascript"), reply.contentType());
            assertEquals("nosniff", reply.headers().get("X-Content-Type-Options"));
            String body = reply.body();
            assertTrue(body.startsWith(callback + "([") && body.endsWith("])"), body);
            return new Reply(reply.status(), reply.headers(), body.substring(callback.length() + 1, body.length() - 1));
        }

        void handshake() throws Exception {
            Map<String, Object> reply = send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"callback-polling\"]}]").get(0);
            assertEquals(true, reply.get("successful"), reply.toString());
            clientId = (String) reply.get("clientId");
        }

        String connect() {
            return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"callback-polling\",\"clientId\":\"" + clientId
                    + "\"}]";
        }
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void jsonpGetRoundTripDeliversOnConnectReplies(Mount mount) throws Exception {
        roundTrip(mount, false);
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void jsonpFormPostRoundTripDeliversOnConnectReplies(Mount mount) throws Exception {
        roundTrip(mount, true);
    }

    private void roundTrip(Mount mount, boolean form) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        Page page = new Page(new Browser(HTTP.client(), server.uri()), form);
        page.handshake();
        String clientId = page.clientId;
        Map<String, Object> subscribed = page.send("[{\"channel\":\"/meta/connect\",\"connectionType\":"
                + "\"callback-polling\",\"clientId\":\"" + clientId + "\",\"advice\":{\"timeout\":0}},"
                + "{\"channel\":\"/meta/subscribe\",\"subscription\":\"/room\",\"clientId\":\"" + clientId + "\"}]").get(1);
        assertEquals(true, subscribed.get("successful"), subscribed.toString());
        assertEquals("callback-polling", server.bayeux().getSession(clientId).getConnectionType());

        CompletableFuture<Reply> parked = page.sendAsync(page.connect());
        Await.until(Duration.ofSeconds(5), () -> server.waitingRequests(), n -> n == 1, "the JSONP connect is parked");
        BayeuxConversation publisher = new BayeuxConversation(new Browser(HTTP.client(), server.uri()));
        publisher.handshake();
        publisher.publish("/room", "{\"text\":\"hi <script>\"}");

        List<Map<String, Object>> delivered = parked.get(10, TimeUnit.SECONDS).messages();
        assertEquals(2, delivered.size(), Json.write(delivered));
        assertEquals("/room", delivered.get(0).get("channel"));
        assertEquals(Map.of("text", "hi <script>"), delivered.get(0).get("data"));
        assertEquals("/meta/connect", delivered.get(1).get("channel"));
    }
}
