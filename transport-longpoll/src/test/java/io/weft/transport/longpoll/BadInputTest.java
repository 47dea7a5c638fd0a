package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.longpoll.PollingServer.Mount;
import io.weft.transport.longpoll.testing.Browser;
import io.weft.transport.longpoll.testing.HttpWire;
import io.weft.transport.longpoll.testing.Reply;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpMethod;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Bad input gets a 4xx with a one-line reason or a Bayeux error reply: never a 500, never a warning in the log, never
 * harm to another client's session.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BadInputTest {
    private static final int LIMIT = 1024;
    private static HttpClient http;
    private PollingServer server;
    private WarningLog log;
    private ScriptedClient bystander;

    @BeforeAll
    static void startClient() throws Exception {
        http = new HttpClient();
        http.setHttpCookieStore(new HttpCookieStore.Empty());
        http.setFollowRedirects(false);
        http.start();
    }

    @AfterAll
    static void stopClient() throws Exception {
        http.stop();
    }

    private Browser start(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.builder().maxMessageSize(LIMIT).build());
        bystander = HttpWire.client(new Browser(http, server.uri()));
        bystander.handshake();
        log = WarningLog.install();
        return new Browser(http, server.uri());
    }

    @AfterEach
    void bystanderIsUnharmedAndNothingWasLoggedAboveInfo() throws Exception {
        try {
            if (bystander != null) {
                assertEquals(true, bystander.connectNow().get(0).get("successful"), "another client's session");
            }
            if (log != null) {
                assertEquals(List.of(), log.warnings());
            }
        } finally {
            if (log != null) {
                log.close();
            }
            if (server != null) {
                server.close();
            }
        }
    }

    private static void assertOneLineReason(Reply reply, int status, String contains) {
        assertEquals(status, reply.status(), reply.body());
        assertTrue(reply.contentType().startsWith("text/plain"), reply.contentType());
        String body = reply.body();
        assertTrue(body.endsWith("\n") && body.indexOf('\n') == body.length() - 1, "one line: " + body);
        assertTrue(body.contains(contains), body);
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void bodyOverMaxMessageSizeGets413(Mount mount) throws Exception {
        Browser browser = start(mount);
        char[] text = new char[LIMIT + 1];
        Arrays.fill(text, ' ');
        text[0] = '[';
        text[LIMIT] = ']';

        Reply reply = browser.send(browser.post(new String(text)));

        assertOneLineReason(reply, 413, "maxMessageSize");
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void declaredLengthOverMaxMessageSizeGets413BeforeTheBodyArrives(Mount mount) throws Exception {
        start(mount);

        assertRefusedAndClosed(mount, "Content-Length: " + 10 * LIMIT, "[{\"channel\":", 413);
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void chunkedBodyIsRefusedOnceItGrowsPastMaxMessageSize(Mount mount) throws Exception {
        start(mount);
        String half = " ".repeat(LIMIT / 2 + 10);
        String chunk = Integer.toHexString(half.length()) + "\r\n" + half + "\r\n";

        // The body never ends: only counting while reading can answer it.
        assertRefusedAndClosed(mount, "Transfer-Encoding: chunked", chunk + chunk, 413);
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void bodyThatStopsArrivingGets408(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.builder().maxMessageSize(LIMIT).build(), 500);
        bystander = null;
        log = WarningLog.install();

        assertRefusedAndClosed(mount, "Content-Length: 100", "[{\"channel\":", 408);
    }

    /**
     * Sends a request whose body never finishes and expects this status, then the server closing the connection (it
     * cannot read past a body it refused). The test closes its end only after that: a client that goes away while the
     * server is still finishing the exchange makes Jetty's servlet channel log a WARN, which would be the test's race,
     * not the server's behaviour.
     */
    private void assertRefusedAndClosed(Mount mount, String framing, String bodyStart, int status) throws Exception {
        try (RawHttp raw = new RawHttp(server.uri())) {
            raw.postUnfinished(framing, bodyStart);
            String[] response = raw.read();
            assertEquals("HTTP/1.1 " + status, response[0].substring(0, 12), mount + ": " + response[1]);
            raw.awaitClosedByServer();
        }
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void bodyThatIsNotJsonGets400WithAOneLineReason(Mount mount) throws Exception {
        Browser browser = start(mount);

        assertOneLineReason(browser.send(browser.post("hello, server")), 400, "JSON");
        assertOneLineReason(browser.send(browser.post("[{\"channel\":\"/meta/handshake\"")), 400, "JSON");
        assertOneLineReason(browser.send(browser.post("")), 400, "empty");
        assertOneLineReason(browser.send(browser.post("42")), 400, "array");
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void jsonpCallbackThatIsNotAShortNameGets400(Mount mount) throws Exception {
        Browser browser = start(mount);
        String handshake = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"callback-polling\"]}]";

        assertOneLineReason(browser.send(browser.jsonp("alert(document.cookie)", handshake)), 400, "jsonp");
        assertOneLineReason(browser.send(browser.jsonp("a".repeat(65), handshake)), 400, "jsonp");
        assertOneLineReason(browser.send(browser.jsonp("", handshake)), 400, "jsonp");
        assertOneLineReason(browser.send(browser.jsonpForm("cb;x", handshake)), 400, "jsonp");
        assertEquals(200, browser.send(browser.jsonp("A.b_c-9" + "z".repeat(57), handshake)).status());
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void fieldsOfTheWrongTypeGetABayeuxErrorReply(Mount mount) throws Exception {
        Browser browser = start(mount);
        String clientId = bystander.clientId();

        Reply reply = browser.send(browser.post("[{\"channel\":42,\"id\":\"1\"},"
                + "{\"channel\":\"/meta/subscribe\",\"clientId\":[\"" + clientId + "\"],\"subscription\":\"/a\",\"id\":\"2\"},"
                + "{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":\"long-polling\",\"id\":\"3\"},"
                + "{\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId + "\",\"advice\":\"none\",\"id\":\"4\"}]"));

        assertEquals(200, reply.status());
        List<Map<String, Object>> messages = reply.messages();
        assertEquals(4, messages.size(), reply.body());
        for (Map<String, Object> message : messages) {
            assertEquals(false, message.get("successful"), reply.body());
            assertTrue(message.get("error") instanceof String, reply.body());
        }
        assertEquals("405::channel_invalid", messages.get(0).get("error"));
        assertEquals("400::message_invalid", messages.get(1).get("error"));
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void malformedRequestsGet4xxNot500(Mount mount) throws Exception {
        Browser browser = start(mount);

        assertOneLineReason(browser.send(browser.prepare(http.newRequest(server.uri()))), 400, "jsonp");
        assertOneLineReason(browser.send(browser.prepare(http.newRequest(server.uri() + "?jsonp=cb"))), 400,
                "message");
        assertOneLineReason(browser.send(browser.prepare(http.newRequest(server.uri()).method(HttpMethod.POST)
                .body(new StringRequestContent("application/x-www-form-urlencoded", "message=%zz")))), 400,
                "malformed");
        Reply put = browser.send(browser.prepare(http.newRequest(server.uri()).method(HttpMethod.PUT)
                .body(new StringRequestContent("application/json", "[]"))));
        assertOneLineReason(put, 405, "PUT");
        assertFalse(put.headers().get("Allow").isEmpty());
    }
}
