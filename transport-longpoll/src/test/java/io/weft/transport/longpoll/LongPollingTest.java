package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.HistoryRule;
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
import org.eclipse.jetty.http.HttpHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The long-polling conversation end to end, over HTTP, through each adapter. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LongPollingTest {
    @RegisterExtension
    static final SharedHttpClient HTTP = new SharedHttpClient();
    private PollingServer server;

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private ScriptedClient start(Mount mount, ServerOptions options) throws Exception {
        server = PollingServer.start(mount, options);
        return newClient();
    }

    /** A scripted client in a browser of its own, which keeps the cookie the server sets. */
    private ScriptedClient newClient() {
        return HttpWire.client(new Browser(HTTP.client(), server.uri()));
    }

    private static Browser browser(ScriptedClient client) {
        return ((HttpWire) client.wire()).browser();
    }

    /** Sends {@code message} as {@code client}'s browser and returns the HTTP response, to read its status and headers. */
    private static Reply sendAs(ScriptedClient client, Map<String, Object> message) throws Exception {
        Browser browser = browser(client);
        return browser.send(browser.post(Json.write(List.of(message))));
    }

    private static Map<String, Object> connectNow(ScriptedClient client) {
        return client.message("/meta/connect", "connectionType", "long-polling", "advice", Map.of("timeout", 0));
    }

    /** The only message of {@code messages}. */
    private static Map<String, Object> only(List<Map<String, Object>> messages) {
        assertEquals(1, messages.size(), messages.toString());
        return messages.get(0);
    }

    /** Handshakes {@code client}, subscribes it to {@code channel} and parks its poll, once the engine holds it. */
    private CompletableFuture<String> parkedSubscriber(ScriptedClient client, String channel) throws Exception {
        client.handshake();
        client.connectNow();
        client.subscribe(channel);
        CompletableFuture<String> parked = client.heldConnect();
        Await.until(Duration.ofSeconds(5), () -> server.waitingRequests(), n -> n == 1, "the engine holds the connect");
        return parked;
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void clientHandshakesConnectsSubscribesPublishesAndReceives(Mount mount) throws Exception {
        ScriptedClient client = start(mount, ServerOptions.defaults());

        Reply handshake = sendAs(client, client.message("/meta/handshake", "version", "1.0",
                "supportedConnectionTypes", List.of("long-polling")));
        assertEquals(200, handshake.status());
        assertTrue(handshake.contentType().startsWith("application/json"), handshake.contentType());
        Map<String, Object> reply = handshake.message();
        assertEquals(true, reply.get("successful"), handshake.body());
        // eventsource too: both mounts stream it (EventSourceTest)
        assertEquals(List.of("long-polling", "callback-polling", "eventsource"), reply.get("supportedConnectionTypes"));
        client.resume((String) reply.get("clientId"));
        assertNotNull(client.clientId());
        assertNotNull(browser(client).cookie(), "the handshake sets the browser cookie");

        assertEquals(true, only(client.connectNow()).get("successful"));
        assertEquals(true, client.subscribe("/chat/room").get("successful"));
        assertEquals(true, only(client.publishJson("/chat/room", "{\"text\":\"hello\"}")).get("successful"));

        List<Map<String, Object>> messages = ScriptedClient.await(client.heldConnect());
        assertEquals(2, messages.size(), messages.toString());
        assertEquals("/chat/room", messages.get(0).get("channel"));
        assertEquals(Map.of("text", "hello"), messages.get(0).get("data"));
        assertEquals("/meta/connect", messages.get(1).get("channel"));
        assertEquals(true, messages.get(1).get("successful"));
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void handshakeSetsAnHttpOnlyBrowserCookieAsConfigured(Mount mount) throws Exception {
        ServerOptions options = ServerOptions.builder()
                .browserCookie(new ServerOptions.BrowserCookie("WEFT_B", "/cometd", true, "Strict")).build();
        server = PollingServer.start(mount, options);
        Browser browser = new Browser(HTTP.client(), server.uri());

        Reply handshake = browser.send(browser.post("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]"));

        String setCookie = handshake.headers().get(HttpHeader.SET_COOKIE);
        assertNotNull(setCookie, "Set-Cookie on the handshake");
        assertTrue(setCookie.matches("WEFT_B=[A-Za-z0-9_-]{24}; Path=/cometd; HttpOnly; Secure; SameSite=Strict"),
                setCookie);
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void requestThatCarriesTheCookieGetsNoNewOne(Mount mount) throws Exception {
        ScriptedClient client = start(mount, ServerOptions.defaults());
        client.handshake();
        String cookie = browser(client).cookie();

        Reply connect = sendAs(client, connectNow(client));

        assertNull(connect.headers().get(HttpHeader.SET_COOKIE));
        assertEquals(cookie, browser(client).cookie());
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void parkedPollIsResumedByAnotherClientsPublish(Mount mount) throws Exception {
        ScriptedClient subscriber = start(mount, ServerOptions.defaults());
        ScriptedClient publisher = newClient();
        publisher.handshake();
        CompletableFuture<String> parked = parkedSubscriber(subscriber, "/news/*");
        assertFalse(parked.isDone());
        publisher.publishJson("/news/today", "\"extra\"");

        List<Map<String, Object>> messages = ScriptedClient.await(parked);
        assertEquals(2, messages.size(), messages.toString());
        assertEquals("/news/today", messages.get(0).get("channel"));
        assertEquals("extra", messages.get(0).get("data"));
        assertEquals("/meta/connect", messages.get(1).get("channel"));
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void aPublishersOwnCopyLeavesWithItsPublishsAnswerWhileItsPollStaysHeld(Mount mount) throws Exception {
        ScriptedClient client = start(mount, ServerOptions.defaults());
        ScriptedClient other = newClient();
        other.handshake();
        CompletableFuture<String> parked = parkedSubscriber(client, "/chat/room");
        List<Map<String, Object>> answer = client.publishJson("/chat/room", "\"mine\"");

        assertEquals(2, answer.size(), answer.toString());
        assertEquals("/chat/room", answer.get(0).get("channel"));
        assertEquals("mine", answer.get(0).get("data"));
        assertEquals(true, answer.get(1).get("successful"), "then the publish's own reply");
        assertEquals(1, server.waitingRequests(), "the poll is still held");
        assertFalse(parked.isDone());
        // The held poll gets the next message, and only that one: the client's own copy left once.
        other.publishJson("/chat/room", "\"theirs\"");
        List<Map<String, Object>> polled = ScriptedClient.await(parked);
        assertEquals(List.of("theirs"), polled.stream().filter(m -> "/chat/room".equals(m.get("channel")))
                .map(m -> m.get("data")).toList(), polled.toString());
        assertEquals(0, server.bayeux().getSession(client.clientId()).getQueueSize());
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void onAChannelWithHistoryTheOwnCopyWaitsForThePollSoThatPositionsArriveInOrder(Mount mount) throws Exception {
        ScriptedClient client = start(mount,
                ServerOptions.builder().history(List.of(HistoryRule.parse("/chat/**"))).build());
        CompletableFuture<String> parked = parkedSubscriber(client, "/chat/room");
        Map<String, Object> reply = only(client.publishJson("/chat/room", "\"mine\""));

        assertEquals(true, reply.get("successful"), reply.toString());
        List<Map<String, Object>> polled = ScriptedClient.await(parked);
        assertEquals(2, polled.size(), polled.toString());
        assertEquals("mine", polled.get(0).get("data"));
        assertTrue(((Map<?, ?>) polled.get(0).get("ext")).containsKey("history"), "with its position: " + polled);
        assertEquals("/meta/connect", polled.get(1).get("channel"));
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void withMetaConnectDeliveryOnlyTheOwnCopyWaitsForThePoll(Mount mount) throws Exception {
        ScriptedClient client = start(mount, ServerOptions.builder().metaConnectDeliveryOnly(true).build());
        CompletableFuture<String> parked = parkedSubscriber(client, "/chat/room");
        Map<String, Object> reply = only(client.publishJson("/chat/room", "\"mine\""));

        assertEquals(true, reply.get("successful"), reply.toString());
        List<Map<String, Object>> polled = ScriptedClient.await(parked);
        assertEquals(2, polled.size(), polled.toString());
        assertEquals("mine", polled.get(0).get("data"));
        assertEquals("/meta/connect", polled.get(1).get("channel"));
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void parkedPollIsAnsweredWhenTheTimeoutExpires(Mount mount) throws Exception {
        ScriptedClient client = start(mount, ServerOptions.builder().timeout(500).build());
        client.handshake();
        client.connectNow();

        Map<String, Object> connect = only(ScriptedClient.await(client.heldConnect()));
        assertEquals("/meta/connect", connect.get("channel"));
        assertEquals(true, connect.get("successful"));
        assertEquals(500, ((Map<?, ?>) connect.get("advice")).get("timeout"));
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void secondTabOfTheSameBrowserIsAdvisedOfMultipleClients(Mount mount) throws Exception {
        ScriptedClient firstTab = start(mount, ServerOptions.defaults());
        firstTab.handshake();
        ScriptedClient secondTab = newClient();
        browser(secondTab).cookie(browser(firstTab).cookie());
        secondTab.handshake();
        firstTab.connectNow();
        secondTab.connectNow();

        CompletableFuture<String> parked = firstTab.heldConnect();
        Await.until(Duration.ofSeconds(5), () -> server.waitingRequests(), n -> n == 1, "the engine holds the first tab's connect");
        Map<String, Object> second = only(ScriptedClient.await(secondTab.heldConnect()));

        Map<String, Object> advice = (Map<String, Object>) second.get("advice");
        assertEquals(true, advice.get("multiple-clients"), second.toString());
        assertEquals(2000, advice.get("interval"));
        assertFalse(parked.isDone(), "the first tab keeps its held connect");
        server.bayeux().getSession(firstTab.clientId()).disconnect();
        ScriptedClient.await(parked);
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void clientIdPresentedWithAnotherBrowsersCookieIsRefused(Mount mount) throws Exception {
        ScriptedClient victim = start(mount, ServerOptions.defaults());
        victim.handshake();
        // the victim's browser presents the cookie its handshake was given: the session is now bound to it
        assertEquals(true, only(victim.connectNow()).get("successful"));
        ScriptedClient attacker = newClient();
        attacker.handshake();
        String attackerCookie = browser(attacker).cookie();

        Browser stolen = new Browser(HTTP.client(), server.uri());
        stolen.cookie(attackerCookie);
        Reply reply = stolen.send(stolen.post("[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\","
                + "\"clientId\":\"" + victim.clientId() + "\",\"advice\":{\"timeout\":0}}]"));

        Map<String, Object> refused = reply.message();
        assertEquals(false, refused.get("successful"));
        assertEquals("402::session_unknown", refused.get("error"));
        assertEquals("handshake", ((Map<?, ?>) refused.get("advice")).get("reconnect"));
        assertEquals(true, only(victim.connectNow()).get("successful"), "the victim's session is intact");
    }

    /**
     * What docs/protocol.md says: setting a cookie is not presenting it. A client that never sends cookies keeps
     * working by clientId; once it presents the cookie it was given, requests without it are refused.
     */
    @ParameterizedTest
    @EnumSource(Mount.class)
    void aClientThatNeverSendsCookiesKeepsWorkingUntilItPresentsOne(Mount mount) throws Exception {
        ScriptedClient client = start(mount, ServerOptions.defaults());
        Reply handshake = sendAs(client, client.message("/meta/handshake", "version", "1.0",
                "supportedConnectionTypes", List.of("long-polling")));
        client.resume((String) handshake.message().get("clientId"));
        String given = browser(client).cookie();
        assertNotNull(given, "the handshake's response sets a cookie: " + handshake.headers());

        Browser cookieless = new Browser(HTTP.client(), server.uri());
        String connect = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\""
                + client.clientId() + "\",\"advice\":{\"timeout\":0}}]";
        for (int i = 0; i < 2; i++) {
            Map<String, Object> answer = cookieless.send(cookieless.post(connect)).message();
            assertEquals(true, answer.get("successful"), "cookieless request " + i + ": " + answer);
            cookieless.cookie(null); // as a client that drops every cookie it is given
        }

        assertEquals(true, only(client.connectNow()).get("successful"), "the client presents its cookie");
        Map<String, Object> refused = cookieless.send(cookieless.post(connect)).message();
        assertEquals("402::session_unknown", refused.get("error"), "bound to the cookie now: " + refused);
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void clientThatVanishesWhileParkedKeepsItsQueueUntilItExpires(Mount mount) throws Exception {
        ScriptedClient client = start(mount, ServerOptions.builder().maxInterval(1500).build());
        ScriptedClient publisher = newClient();
        client.handshake();
        client.connectNow();
        client.subscribe("/alerts");
        publisher.handshake();

        CompletableFuture<String> parked = client.heldConnect();
        Await.until(Duration.ofSeconds(5), () -> server.waitingRequests(), n -> n == 1, "the engine holds the connect");
        client.wire().close(); // the browser tab closed: its held request is aborted
        Await.until(Duration.ofSeconds(5), () -> server.requestsActive(), n -> n == 0, "the server notices the client has gone");
        assertTrue(parked.isCompletedExceptionally());

        publisher.publishJson("/alerts", "\"while away\"");

        var session = server.bayeux().getSession(client.clientId());
        assertNotNull(session);
        assertEquals(1, session.getQueueSize(), "the message waits in the queue, not in a dead connection");
        Await.until(Duration.ofSeconds(10), () -> server.bayeux().getSession(client.clientId()) == null, "the session expires after maxInterval");
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void clientUnsubscribesAndDisconnects(Mount mount) throws Exception {
        ScriptedClient client = start(mount, ServerOptions.defaults());
        client.handshake();
        client.connectNow();
        client.subscribe("/quotes");

        assertEquals(true, client.unsubscribe("/quotes").get("successful"));
        client.publishJson("/quotes", "1");
        assertEquals(0, server.bayeux().getSession(client.clientId()).getQueueSize());
        assertEquals(true, client.disconnect().get("successful"));
        assertNull(server.bayeux().getSession(client.clientId()));
    }
}
