package io.weft.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The client's state machine against a scripted server: negotiation, fallback, advice, re-handshake. */
@Timeout(30)
class ProtocolStateTest {
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final ScriptedTransport webSocket = new ScriptedTransport("websocket", true);
    private final ScriptedTransport polling = new ScriptedTransport("long-polling", false);
    private final BayeuxClient client = BayeuxClient.builder("http://localhost/cometd")
            .scheduler(scheduler)
            .backoff(10, 50)
            .maxNetworkDelay(60_000)
            .transport(webSocket::attach)
            .transport(polling::attach)
            .build();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private static Map<String, Object> handshakeOk(String clientId, String... types) {
        return Map.of("successful", true, "clientId", clientId, "supportedConnectionTypes", List.of(types),
                "advice", Map.of("reconnect", "retry", "interval", 0, "timeout", 20000));
    }

    private static final Map<String, Object> OK = Map.of("successful", true);

    @Test
    void handshakeOffersEveryTransportAndConnectsOverThePreferredCommonOne() throws Exception {
        CompletableFuture<Message> handshake = new CompletableFuture<>();
        client.handshake(TestClients.into(handshake));

        Message.Mutable request = webSocket.next("/meta/handshake");
        assertEquals(List.of("websocket", "long-polling"), request.get(Message.SUPPORTED_CONNECTION_TYPES));
        assertEquals("1.0", request.get(Message.VERSION));
        webSocket.reply(request, handshakeOk("c1", "long-polling", "websocket"));

        assertTrue(handshake.get(5, TimeUnit.SECONDS).isSuccessful());
        Message.Mutable connect = webSocket.next("/meta/connect");
        assertEquals("c1", connect.getClientId());
        assertEquals("websocket", connect.get(Message.CONNECTION_TYPE));
        assertEquals(Map.of("timeout", 0), connect.getAdvice(), "the first connect must not be held");
    }

    @Test
    void aTransportThatNeverWorkedFallsBackToTheNext() throws Exception {
        client.handshake();

        webSocket.fail(webSocket.next("/meta/handshake"), new IOException("upgrade refused: 404"));

        Message.Mutable retry = polling.next("/meta/handshake");
        assertEquals(List.of("long-polling"), retry.get(Message.SUPPORTED_CONNECTION_TYPES));
        polling.reply(retry, handshakeOk("c1", "long-polling", "websocket"));
        assertEquals("long-polling", polling.next("/meta/connect").get(Message.CONNECTION_TYPE));
        assertEquals("long-polling", client.getTransportName());
    }

    @Test
    void theServersOwnTransportListDecidesTheConnectTransport() throws Exception {
        client.handshake();
        webSocket.reply(webSocket.next("/meta/handshake"), handshakeOk("c1", "long-polling"));

        assertEquals("long-polling", polling.next("/meta/connect").get(Message.CONNECTION_TYPE));
        assertEquals(1, webSocket.closes, "the unused websocket is closed");
    }

    @Test
    void noCommonTransportEndsTheClient() throws Exception {
        CompletableFuture<Message> handshake = new CompletableFuture<>();
        client.handshake(TestClients.into(handshake));
        webSocket.reply(webSocket.next("/meta/handshake"), handshakeOk("c1", "callback-polling"));

        ExecutionException failure = assertThrows(ExecutionException.class, () -> handshake.get(5, TimeUnit.SECONDS));
        assertTrue(failure.getCause().getMessage().contains("no common connection type"));
        assertEquals(BayeuxClient.State.DISCONNECTED, client.getState());
    }

    @Test
    void deniedHandshakeWithReconnectNoneStops() throws Exception {
        CompletableFuture<Message> handshake = new CompletableFuture<>();
        client.handshake(TestClients.into(handshake));
        webSocket.reply(webSocket.next("/meta/handshake"), Map.of("successful", false,
                "error", "403::handshake_denied", "advice", Map.of("reconnect", "none")));

        ExecutionException failure = assertThrows(ExecutionException.class, () -> handshake.get(5, TimeUnit.SECONDS));
        assertEquals("403::handshake_denied", assertInstanceOf(ReplyException.class, failure.getCause()).error());
        assertEquals(BayeuxClient.State.DISCONNECTED, client.getState());
        assertTrue(webSocket.sentNothingMore());
    }

    @Test
    void deniedHandshakeWithRetryAdviceIsRetried() throws Exception {
        client.handshake();
        webSocket.reply(webSocket.next("/meta/handshake"), Map.of("successful", false,
                "error", "403::handshake_denied", "advice", Map.of("reconnect", "handshake", "interval", 0)));

        webSocket.next("/meta/handshake");
        assertEquals(BayeuxClient.State.HANDSHAKING, client.getState());
    }

    @Test
    void lostConnectIsRetriedWithTheSameSession() throws Exception {
        client.handshake();
        webSocket.reply(webSocket.next("/meta/handshake"), handshakeOk("c1", "websocket"));
        webSocket.reply(webSocket.next("/meta/connect"), OK);

        webSocket.fail(webSocket.next("/meta/connect"), new IOException("connection reset"));

        Message.Mutable retried = webSocket.next("/meta/connect");
        assertEquals("c1", retried.getClientId());
        assertEquals(BayeuxClient.State.UNCONNECTED, client.getState());
        webSocket.reply(retried, OK);
        TestClients.awaitTrue("connected", () -> client.getState() == BayeuxClient.State.CONNECTED);
    }

    @Test
    void connectIntervalAdviceDelaysTheNextConnect() throws Exception {
        client.handshake();
        webSocket.reply(webSocket.next("/meta/handshake"), handshakeOk("c1", "websocket"));

        webSocket.reply(webSocket.next("/meta/connect"), Map.of("successful", true,
                "advice", Map.of("interval", 300)));

        assertTrue(webSocket.sentNothingMore(), "the next connect waits for the advised interval");
        webSocket.next("/meta/connect");
    }

    @Test
    void unknownSessionIsHandshakenAgainAndItsSubscriptionsRestored() throws Exception {
        client.handshake();
        webSocket.reply(webSocket.next("/meta/handshake"), handshakeOk("c1", "websocket"));
        webSocket.reply(webSocket.next("/meta/connect"), OK);
        Message.Mutable held = webSocket.next("/meta/connect");
        client.subscribe("/chat/a", m -> { });
        Message.Mutable subscribe = webSocket.next("/meta/subscribe");
        webSocket.reply(subscribe, Map.of("successful", true, "subscription", "/chat/a"));

        webSocket.reply(held, Map.of("successful", false, "error", "402::session_unknown",
                "advice", Map.of("reconnect", "handshake", "interval", 0)));

        webSocket.reply(webSocket.next("/meta/handshake"), handshakeOk("c2", "websocket"));
        assertEquals("c2", webSocket.next("/meta/connect").getClientId());
        Message.Mutable resubscribe = webSocket.next("/meta/subscribe");
        assertEquals("/chat/a", resubscribe.get(Message.SUBSCRIPTION));
        assertEquals("c2", resubscribe.getClientId());
    }

    @Test
    void lostRepliesOfAPersistentTransportTimeOutAndCloseIt() throws Exception {
        BayeuxClient impatient = BayeuxClient.builder("http://localhost/cometd").scheduler(scheduler)
                .maxNetworkDelay(100).transport(webSocket::attach).build();
        CompletableFuture<Message> handshake = new CompletableFuture<>();

        impatient.handshake(TestClients.into(handshake));
        webSocket.next("/meta/handshake");

        ExecutionException failure = assertThrows(ExecutionException.class, () -> handshake.get(5, TimeUnit.SECONDS));
        assertInstanceOf(java.util.concurrent.TimeoutException.class, failure.getCause());
        // The handshake's promise fails first; the transport is closed right after, maybe on another thread.
        TestClients.awaitTrue("the transport closed", () -> webSocket.closes == 1);
        impatient.disconnect();
    }

    @Test
    void publishRepliesGoToTheirCallbacksAndDeliveriesToListeners() throws Exception {
        client.handshake();
        webSocket.reply(webSocket.next("/meta/handshake"), handshakeOk("c1", "websocket"));
        webSocket.next("/meta/connect");
        CompletableFuture<Message> delivered = new CompletableFuture<>();
        client.addListener("/chat/*", delivered::complete);
        CompletableFuture<Message> published = new CompletableFuture<>();

        client.publish("/chat/a", Map.of("text", "hi"), TestClients.into(published));
        Message.Mutable publish = webSocket.next("/chat/a");
        webSocket.reply(List.of(publish), Map.of("channel", "/chat/a", "data", Map.of("text", "hi"), "id",
                publish.getId()), Map.of("channel", "/chat/a", "id", publish.getId(), "successful", true));

        assertTrue(published.get(5, TimeUnit.SECONDS).isSuccessful());
        assertEquals(Map.of("text", "hi"), delivered.get(5, TimeUnit.SECONDS).getData());
    }

    @Test
    void disconnectSendsDisconnectAndClosesTheTransports() throws Exception {
        client.handshake();
        webSocket.reply(webSocket.next("/meta/handshake"), handshakeOk("c1", "websocket"));
        webSocket.next("/meta/connect");
        CompletableFuture<Message> done = new CompletableFuture<>();

        client.disconnect(TestClients.into(done));
        Message.Mutable disconnect = webSocket.next("/meta/disconnect");
        assertEquals("c1", disconnect.getClientId());
        webSocket.reply(disconnect, OK);

        assertTrue(done.get(5, TimeUnit.SECONDS).isSuccessful());
        assertEquals(BayeuxClient.State.DISCONNECTED, client.getState());
        assertNull(client.getId());
        assertTrue(webSocket.closes >= 1);
        assertFalse(polling.closes < 1, "every transport is closed");
    }

    @Test
    void publishingWithoutAHandshakeFails() {
        CompletableFuture<Message> published = new CompletableFuture<>();
        client.publish("/chat/a", "x", TestClients.into(published));
        ExecutionException failure = assertThrows(ExecutionException.class, () -> published.get(5, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, failure.getCause());
        assertThrows(IllegalArgumentException.class, () -> client.publish("/meta/connect", "x"));
        assertThrows(IllegalArgumentException.class, () -> client.publish("/chat/*", "x"));
    }
}
