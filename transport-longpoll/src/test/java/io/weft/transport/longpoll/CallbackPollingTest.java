package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Await;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.longpoll.PollingServer.Mount;
import io.weft.transport.longpoll.testing.Browser;
import io.weft.transport.longpoll.testing.HttpWire;
import io.weft.transport.longpoll.testing.Reply;
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

    /**
     * U+2028 and U+2029 are legal in JSON strings but end a line in the script engines of older browsers, where a
     * string literal may not span lines: a JSONP answer carrying one raw would fail to run.
     */
    @ParameterizedTest
    @EnumSource(Mount.class)
    void lineAndParagraphSeparatorsAreEscapedInJsonpAnswers(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        Browser browser = new Browser(HTTP.client(), server.uri());
        String id = "a\u2028b\u2029c";
        Reply reply = browser.send(browser.jsonp("cb", "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"callback-polling\"],\"id\":\"" + id + "\"}]"));
        assertEquals(200, reply.status(), reply.body());
        assertFalse(reply.body().contains("\u2028") || reply.body().contains("\u2029"), "raw separators: " + reply.body());
        assertTrue(reply.body().contains("\\u2028") && reply.body().contains("\\u2029"), reply.body());
        String json = reply.body().substring("cb(".length(), reply.body().length() - 1);
        assertEquals(id, Json.array(json).get(0).get("id"), "the JSON still reads as what was sent");
    }

    private void roundTrip(Mount mount, boolean form) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        // A browser page that talks JSONP through script tags named _cometd_jsonp_N, as the JS client does; the wire
        // checks each answer is the script a browser would run (status 200, JavaScript, nosniff, its callback).
        ScriptedClient page = new ScriptedClient(HttpWire.of(new Browser(HTTP.client(), server.uri()),
                form ? HttpWire.Kind.JSONP_FORM : HttpWire.Kind.JSONP_GET));
        Map<String, Object> handshake = page.handshake();
        assertEquals(true, handshake.get("successful"), handshake.toString());
        String clientId = page.clientId();
        Map<String, Object> subscribed = page.send("[{\"channel\":\"/meta/connect\",\"connectionType\":"
                + "\"callback-polling\",\"clientId\":\"" + clientId + "\",\"advice\":{\"timeout\":0}},"
                + "{\"channel\":\"/meta/subscribe\",\"subscription\":\"/room\",\"clientId\":\"" + clientId + "\"}]").get(1);
        assertEquals(true, subscribed.get("successful"), subscribed.toString());
        assertEquals("callback-polling", server.bayeux().getSession(clientId).getConnectionType());

        CompletableFuture<String> parked = page.heldConnect();
        Await.until(Duration.ofSeconds(5), () -> server.waitingRequests(), n -> n == 1, "the JSONP connect is parked");
        ScriptedClient publisher = HttpWire.client(new Browser(HTTP.client(), server.uri()));
        publisher.handshake();
        publisher.publishJson("/room", "{\"text\":\"hi <script>\"}");

        List<Map<String, Object>> delivered = Json.array(parked.get(10, TimeUnit.SECONDS));
        assertEquals(2, delivered.size(), Json.write(delivered));
        assertEquals("/room", delivered.get(0).get("channel"));
        assertEquals(Map.of("text", "hi <script>"), delivered.get(0).get("data"));
        assertEquals("/meta/connect", delivered.get(1).get("channel"));
    }
}
