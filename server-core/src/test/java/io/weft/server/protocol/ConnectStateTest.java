package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The one connect state machine: holding, answering, expiring, browser limits and binding. */
class ConnectStateTest {
    private static final long TIMEOUT = 20_000;
    private static final long MAX_INTERVAL = 10_000;

    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void aConnectAskingForTimeoutZeroIsAnsweredAtOnce() {
        ScriptedClient client = ScriptedClient.of(server, "b");
        client.handshake();
        List<Map<String, Object>> replies = client.connectNow();
        assertEquals(true, replies.get(0).get("successful"));
        assertEquals(Map.of("reconnect", "retry", "interval", 0, "timeout", 20000), replies.get(0).get("advice"));
    }

    @Test
    void aHeldConnectIsAnsweredWhenItsTimeoutEnds() {
        ScriptedClient client = ScriptedClient.connected(server, "b");
        CompletableFuture<String> held = client.heldConnect();
        scheduler.advance(TIMEOUT - 1);
        assertFalse(held.isDone());
        scheduler.advance(1);
        List<Map<String, Object>> replies = ScriptedClient.await(held);
        assertEquals(1, replies.size());
        assertEquals("/meta/connect", replies.get(0).get("channel"));
        assertEquals(true, replies.get(0).get("successful"));
    }

    @Test
    void aConnectFindingQueuedMessagesIsAnsweredAtOnceWithThem() {
        ScriptedClient alice = ScriptedClient.connected(server, "a");
        alice.subscribe("/x");
        ScriptedClient bob = ScriptedClient.connected(server, "b");
        bob.publishJson("/x", "1");
        bob.publishJson("/x", "2");
        CompletableFuture<String> connect = alice.heldConnect();
        assertTrue(connect.isDone(), "not held: messages are waiting");
        List<Map<String, Object>> replies = ScriptedClient.await(connect);
        assertEquals(List.of(1, 2), List.of(replies.get(0).get("data"), replies.get(1).get("data")));
        assertEquals("/meta/connect", replies.get(2).get("channel"));
    }

    @Test
    void aConnectSharingItsRequestWithOtherMessagesIsNotHeld() {
        ScriptedClient client = ScriptedClient.connected(server, "b");
        List<Map<String, Object>> replies = client.send("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/y\","
                + "\"clientId\":\"" + client.clientId() + "\"},{\"channel\":\"/meta/connect\",\"clientId\":\""
                + client.clientId() + "\",\"connectionType\":\"long-polling\"}]");
        assertEquals(List.of("/meta/subscribe", "/meta/connect"),
                List.of(replies.get(0).get("channel"), replies.get(1).get("channel")));
    }

    @Test
    void aSessionExpiresAfterIntervalPlusMaxIntervalWithoutAConnect() {
        ScriptedClient client = ScriptedClient.connected(server, "b");
        String id = client.clientId();
        scheduler.advance(MAX_INTERVAL - 1);
        assertNotNull(server.getSession(id));
        scheduler.advance(1);
        assertNull(server.getSession(id));
        assertEquals("402::session_unknown", client.connectNow().get(0).get("error"));
    }

    @Test
    void aHandshakeWithoutAnyConnectExpiresToo() {
        ScriptedClient client = ScriptedClient.of(server, "b");
        client.handshake();
        scheduler.advance(MAX_INTERVAL);
        assertNull(server.getSession(client.clientId()));
    }

    @Test
    void aHeldConnectKeepsTheSessionAliveAndEachConnectRestartsTheClock() {
        ScriptedClient client = ScriptedClient.connected(server, "b");
        for (int i = 0; i < 5; i++) {
            scheduler.advance(MAX_INTERVAL - 1);
            CompletableFuture<String> held = client.heldConnect();
            scheduler.advance(TIMEOUT);
            assertTrue(held.isDone());
        }
        assertNotNull(server.getSession(client.clientId()));
    }

    @Test
    void intervalIsAddedToTheExpiry() {
        server.close();
        server = BayeuxServer.create(ServerOptions.builder().interval(5_000).build(), scheduler);
        ScriptedClient client = ScriptedClient.connected(server, "b");
        scheduler.advance(5_000 + MAX_INTERVAL - 1);
        assertNotNull(server.getSession(client.clientId()));
        scheduler.advance(1);
        assertNull(server.getSession(client.clientId()));
    }

    @Test
    void aSecondTabOfTheSameBrowserIsAdvisedMultipleClients() {
        ScriptedClient tab1 = ScriptedClient.connected(server, "same-browser");
        tab1.subscribe("/tab1");
        ScriptedClient tab2 = ScriptedClient.connected(server, "same-browser");
        CompletableFuture<String> held = tab1.heldConnect();
        assertFalse(held.isDone());
        CompletableFuture<String> second = tab2.heldConnect();
        assertTrue(second.isDone(), "the browser's one held poll is taken");
        Map<?, ?> advice = (Map<?, ?>) ScriptedClient.await(second).get(0).get("advice");
        assertEquals(true, advice.get("multiple-clients"));
        assertEquals(2000, advice.get("interval"));
        ScriptedClient.connected(server, "elsewhere").publishJson("/tab1", "1");
        assertTrue(held.isDone());
        assertFalse(tab2.heldConnect().isDone(), "the slot is free again");
    }

    @Test
    void aNewConnectAnswersTheOneItReplaces() {
        ScriptedClient client = ScriptedClient.connected(server, "b");
        CompletableFuture<String> first = client.heldConnect();
        CompletableFuture<String> second = client.heldConnect();
        assertTrue(first.isDone());
        assertFalse(second.isDone());
        assertEquals(true, ScriptedClient.await(first).get(0).get("successful"));
    }

    @Test
    void aClientIdPresentedByAnotherBrowserIsUnknown() {
        ScriptedClient owner = ScriptedClient.connected(server, "owner");
        ScriptedClient thief = ScriptedClient.of(server, "thief");
        thief.resume(owner.clientId());
        assertEquals("402::session_unknown", thief.connectNow().get(0).get("error"));
        ScriptedClient cookieless = ScriptedClient.of(server, null);
        cookieless.resume(owner.clientId());
        assertEquals("402::session_unknown", cookieless.publishJson("/x", "1").get(0).get("error"));
        assertEquals(true, owner.connectNow().get(0).get("successful"), "the owner is unaffected");
    }

    @Test
    void aCookielessSessionIsBoundToTheFirstBrowserThatPresentsOne() {
        ScriptedClient cookieless = ScriptedClient.connected(server, null);
        ScriptedClient browser = ScriptedClient.of(server, "first");
        browser.resume(cookieless.clientId());
        assertEquals(true, browser.connectNow().get(0).get("successful"));
        ScriptedClient other = ScriptedClient.of(server, "second");
        other.resume(cookieless.clientId());
        assertEquals("402::session_unknown", other.connectNow().get(0).get("error"));
    }

    @Test
    void trustClientIdAcceptsAnyBrowser() {
        server.close();
        server = BayeuxServer.create(ServerOptions.builder().trustClientId(true).build(), scheduler);
        ScriptedClient owner = ScriptedClient.connected(server, "owner");
        ScriptedClient other = ScriptedClient.of(server, "other");
        other.resume(owner.clientId());
        assertEquals(true, other.connectNow().get(0).get("successful"));
    }

    @Test
    void aClientThatVanishesWhileParkedKeepsItsQueueUntilItExpires() {
        ScriptedClient alice = ScriptedClient.connected(server, "a");
        alice.subscribe("/x");
        InMemoryTransport.Exchange parked = alice.connectExchange();
        parked.abandon();
        ScriptedClient bob = ScriptedClient.connected(server, "b");
        bob.publishJson("/x", "1");
        assertEquals(1, server.getSession(alice.clientId()).getQueueSize());
        scheduler.advance(MAX_INTERVAL - 1);
        assertEquals(1, server.getSession(alice.clientId()).getQueueSize());
        scheduler.advance(1);
        assertNull(server.getSession(alice.clientId()));
    }

    @Test
    void aClientThatComesBackAfterVanishingGetsWhatWasQueued() {
        ScriptedClient alice = ScriptedClient.connected(server, "a");
        alice.subscribe("/x");
        alice.connectExchange().abandon();
        ScriptedClient.connected(server, "b").publishJson("/x", "\"kept\"");
        List<Map<String, Object>> replies = ScriptedClient.await(alice.heldConnect());
        assertEquals("kept", replies.get(0).get("data"));
    }

    @Test
    void disconnectAnswersTheHeldConnectWithReconnectNone() {
        ScriptedClient client = ScriptedClient.connected(server, "b");
        CompletableFuture<String> held = client.heldConnect();
        // A second request of the same browser carries the disconnect, as the official clients do.
        client.disconnect();
        Map<?, ?> advice = (Map<?, ?>) ScriptedClient.await(held).get(0).get("advice");
        assertEquals("none", advice.get("reconnect"));
        assertEquals(0, scheduler.pending() - 1, "only the channel sweep remains scheduled");
    }
}
