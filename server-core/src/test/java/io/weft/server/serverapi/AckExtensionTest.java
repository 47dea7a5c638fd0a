package io.weft.server.serverapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.ext.AcknowledgedMessagesExtension;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import io.weft.server.testing.SocketClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Acknowledged delivery: a lost /meta/connect reply loses nothing, reorders nothing, duplicates nothing. */
class AckExtensionTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);
    private ScriptedClient publisher;

    @AfterEach
    void close() {
        server.close();
    }

    private void start(ServerOptions options) {
        server.close();
        server = BayeuxServer.create(options, scheduler);
        server.addExtension(new AcknowledgedMessagesExtension());
        publisher = ScriptedClient.of(server, "publisher");
        publisher.handshake();
    }

    /** What a client application sees: the data of messages on /x, and the last batch id, as the client tracks it. */
    private static final class App {
        final List<Object> received = new ArrayList<>();
        long lastBatch = 0;

        void take(List<Map<String, Object>> messages) {
            for (Map<String, Object> message : messages) {
                if ("/x".equals(message.get("channel")) && message.containsKey("data")) {
                    received.add(message.get("data"));
                } else if ("/meta/connect".equals(message.get("channel"))) {
                    lastBatch = ((Number) ((Map<?, ?>) message.get("ext")).get("ack")).longValue();
                }
            }
        }

        String connect(String clientId, String type) {
            return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"" + type + "\",\"clientId\":\"" + clientId
                    + "\",\"ext\":{\"ack\":" + lastBatch + "}}]";
        }
    }

    /** Publishes values to /x in one request, so that they leave together. */
    private void publish(int... values) {
        StringBuilder batch = new StringBuilder("[");
        for (int value : values) {
            batch.append(batch.length() > 1 ? "," : "").append("{\"channel\":\"/x\",\"data\":").append(value)
                    .append(",\"clientId\":\"").append(publisher.clientId()).append("\"}");
        }
        publisher.send(batch.append("]").toString());
    }

    @Test
    void overLongPollingALostReplyIsSentAgainInOrder() {
        start(ServerOptions.defaults());
        ScriptedClient client = ScriptedClient.of(server, "b");
        Map<String, Object> handshake = client.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"ext\":{\"ack\":true}}]").get(0);
        assertEquals(Map.of("ack", true), handshake.get("ext"));
        client.resume((String) handshake.get("clientId"));
        client.subscribe("/x");
        App app = new App();

        CompletableFuture<String> first = client.sendAsync(app.connect(client.clientId(), "long-polling"));
        publish(1, 2);
        app.take(ScriptedClient.await(first));
        assertEquals(List.of(1, 2), app.received);

        CompletableFuture<String> lost = client.sendAsync(app.connect(client.clientId(), "long-polling"));
        publish(3, 4);
        assertTrue(lost.isDone(), "the reply left the server, and is lost on the way");
        publisher.publishJson("/x", "5");

        app.take(client.send(app.connect(client.clientId(), "long-polling")));
        assertEquals(List.of(1, 2, 3, 4, 5), app.received);
        assertEquals(2, server.getStats().messagesResent(), "3 and 4 were sent again");
        CompletableFuture<String> next = client.sendAsync(app.connect(client.clientId(), "long-polling"));
        assertFalse(next.isDone(), "nothing left to send again");
    }

    @Test
    void aConnectGivenUpIsAnsweredWhenTheNextOnesAcknowledgementArrivesSoNothingLeavesOnItAfter() {
        start(ServerOptions.defaults());
        ScriptedClient client = ScriptedClient.of(server, "b");
        client.resume((String) client.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"ext\":{\"ack\":true}}]").get(0).get("clientId"));
        client.subscribe("/x");
        App app = new App();
        CompletableFuture<String> first = client.sendAsync(app.connect(client.clientId(), "long-polling"));
        publish(1);
        app.take(ScriptedClient.await(first));
        CompletableFuture<String> givenUp = client.sendAsync(app.connect(client.clientId(), "long-polling"));
        assertFalse(givenUp.isDone());

        // The client's new connect: the ack extension acknowledges first, and a publish may come before the connect
        // itself is handled (emulated: the acknowledgement alone, the publish, then a connect without one).
        server.getSession(client.clientId()).acknowledge(app.lastBatch);
        assertTrue(givenUp.isDone(), "answered at once");
        assertEquals(List.of("/meta/connect"), ScriptedClient.await(givenUp).stream().map(m -> m.get("channel"))
                .toList(), "without messages");
        publish(2);
        CompletableFuture<String> next = client.sendAsync("[{\"channel\":\"/meta/connect\",\"connectionType\":"
                + "\"long-polling\",\"clientId\":\"" + client.clientId() + "\"}]");

        assertTrue(next.isDone(), "2 waited for it");
        app.take(ScriptedClient.await(next));
        assertEquals(List.of(1, 2), app.received);
    }

    @Test
    void overWebSocketMessagesWaitForTheConnectAndSurviveALostFrame() {
        start(ServerOptions.defaults());
        InMemoryTransport websocket = InMemoryTransport.websocket(server);
        SocketClient socket = new SocketClient(websocket, "b");
        socket.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"ext\":{\"ack\":true}}]");
        socket.useClientId((String) socket.next().get(0).get("clientId"));
        socket.subscribe("/x");
        socket.next();
        App app = new App();

        socket.send(app.connect(socket.clientId(), "websocket"));
        publisher.publishJson("/x", "1");
        app.take(socket.next());
        assertEquals(List.of(1), app.received);

        socket.send(app.connect(socket.clientId(), "websocket"));
        publisher.publishJson("/x", "2");
        socket.next();
        socket.socket().close();
        publisher.publishJson("/x", "3");

        SocketClient again = new SocketClient(websocket, "b");
        again.useClientId(socket.clientId());
        again.send(app.connect(socket.clientId(), "websocket"));
        app.take(again.next());
        assertEquals(List.of(1, 2, 3), app.received);
    }

    @Test
    void unacknowledgedMessagesAreBoundedInMessagesNotBatches() {
        start(ServerOptions.builder().maxUnacknowledged(3).build());
        ScriptedClient client = ScriptedClient.of(server, "b");
        client.resume((String) client.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"ext\":{\"ack\":true}}]").get(0).get("clientId"));
        client.subscribe("/x");
        for (int i = 0; i < 5; i++) {
            publisher.publishJson("/x", String.valueOf(2 * i));
            publisher.publishJson("/x", String.valueOf(2 * i + 1));
            client.connectNow();
        }
        SessionImpl session = (SessionImpl) server.getSession(client.clientId());
        assertEquals(3, session.ackTracker().pendingMessages());
        assertEquals(7, server.getRefusals().get(Limit.UNACKNOWLEDGED));
    }

    @Test
    void aClientThatAlwaysAcknowledgesZeroGetsABoundedReplayWithinMaxQueue() {
        start(ServerOptions.builder().maxUnacknowledged(50).maxQueue(20).build());
        ScriptedClient client = ScriptedClient.of(server, "b");
        client.resume((String) client.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"ext\":{\"ack\":true}}]").get(0).get("clientId"));
        client.subscribe("/x");
        String ackZero = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\""
                + client.clientId() + "\",\"advice\":{\"timeout\":0},\"ext\":{\"ack\":0}}]";
        int largest = 0;
        for (int round = 0; round < 10; round++) {
            for (int i = 0; i < 10; i++) {
                publisher.publishJson("/x", String.valueOf(round * 10 + i));
            }
            List<Map<String, Object>> reply = client.send(ackZero);
            largest = Math.max(largest, reply.size() - 1);
        }
        SessionImpl session = (SessionImpl) server.getSession(client.clientId());
        assertTrue(largest <= 20, "a replay carried " + largest + " messages, more than maxQueue");
        assertTrue(session.ackTracker().pendingMessages() <= 50);
        assertTrue(session.isConnected(), "a replay must not disconnect the session");
    }

    @Test
    void clientsThatDoNotAskAreUnaffected() {
        start(ServerOptions.defaults());
        ScriptedClient client = ScriptedClient.of(server, "b");
        Map<String, Object> handshake = client.handshake();
        assertFalse(handshake.containsKey("ext"));
        assertFalse(server.getSession(client.clientId()).isMetaConnectDeliveryOnly());
    }
}
