package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.ext.AcknowledgedMessagesExtension;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What one session can make the server hold is bounded in bytes, not only in messages: its queue, what the
 * acknowledgement extension keeps, and what one reply takes out of the queue. And a client that reports the same
 * batch lost again and again gets it again a bounded number of times, not on every request.
 */
class RetentionBoundsTest {
    /** A message's data: a JSON string of about this many bytes, numbered. */
    private static final int DATA_BYTES = 1000;

    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServer server;

    @AfterEach
    void close() {
        server.close();
    }

    private static String data(int number) {
        return "\"" + number + ":" + "x".repeat(DATA_BYTES) + "\"";
    }

    private static int number(Object data) {
        String text = (String) data;
        return Integer.parseInt(text.substring(0, text.indexOf(':')));
    }

    private static List<Integer> numbers(List<Map<String, Object>> messages) {
        List<Integer> numbers = new ArrayList<>();
        for (Map<String, Object> message : messages) {
            if ("/q".equals(message.get("channel")) && message.containsKey("data")) {
                numbers.add(number(message.get("data")));
            }
        }
        return numbers;
    }

    @Test
    void aQueueHoldsAtMostMaxQueueBytesAndDropsTheOldestCounted() {
        server = BayeuxServer.create(ServerOptions.builder().maxQueueBytes(4096).build(), scheduler);
        ScriptedClient slow = ScriptedClient.connected(server, "slow");
        slow.subscribe("/q");
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        for (int i = 0; i < 20; i++) {
            publisher.publishJson("/q", data(i));
        }
        SessionImpl session = (SessionImpl) server.getSession(slow.clientId());
        assertTrue(session.getQueuedBytes() <= 4096, session.getQueuedBytes() + " bytes queued");
        assertEquals(3, session.getQueueSize(), "three messages of about 1 KB fit in 4 KB");
        assertEquals(17, session.getDroppedMessages());
        assertEquals(17, server.getRefusals().get(Limit.QUEUE_BYTES));
        assertEquals(0, server.getRefusals().get(Limit.QUEUE));
        assertEquals(List.of(17, 18, 19), numbers(slow.connectNow()), "the newest, in order");
        assertEquals(0, session.getQueuedBytes(), "what left the queue is no longer counted");
    }

    @Test
    void aMessageLargerThanMaxQueueBytesIsStillQueuedAlone() {
        server = BayeuxServer.create(ServerOptions.builder().maxQueueBytes(1024).build(), scheduler);
        ScriptedClient slow = ScriptedClient.connected(server, "slow");
        slow.subscribe("/q");
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        publisher.publishJson("/q", "\"0:" + "y".repeat(3000) + "\"");
        publisher.publishJson("/q", "\"1:" + "y".repeat(3000) + "\"");
        assertEquals(List.of(1), numbers(slow.connectNow()));
        assertEquals(1, server.getRefusals().get(Limit.QUEUE_BYTES));
    }

    @Test
    void underTheDisconnectPolicyAQueuePastItsBytesEndsTheSession() {
        server = BayeuxServer.create(ServerOptions.builder().maxQueueBytes(4096)
                .queueOverflow(ServerOptions.OverflowPolicy.DISCONNECT).build(), scheduler);
        ScriptedClient slow = ScriptedClient.connected(server, "slow");
        slow.subscribe("/q");
        slow.connectNow();
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        for (int i = 0; i < 5; i++) {
            publisher.publishJson("/q", data(i));
        }
        assertNull(server.getSession(slow.clientId()));
        assertEquals("408::queue_full", slow.connectNow().get(0).get("error"));
        assertEquals(1, server.getRefusals().get(Limit.QUEUE_BYTES));
    }

    @Test
    void aPollCarriesAtMostMaxMessageSizeBytesAndTheRestComesWithTheNextAtOnce() {
        server = BayeuxServer.create(ServerOptions.builder().maxMessageSize(4096).build(), scheduler);
        ScriptedClient slow = ScriptedClient.connected(server, "slow");
        slow.subscribe("/q");
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        for (int i = 0; i < 10; i++) {
            publisher.publishJson("/q", data(i));
        }
        List<Integer> received = new ArrayList<>();
        int polls = 0;
        while (received.size() < 10 && polls++ < 10) {
            List<Integer> batch = numbers(slow.connectNow());
            assertTrue(batch.size() <= 4, "one reply carried " + batch.size() + " messages of about 1 KB");
            received.addAll(batch);
        }
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), received, "nothing lost, in order");
        assertEquals(0, server.getRefusals().get(Limit.QUEUE_BYTES));
    }

    /** A client of the acknowledgement extension that records what it got and sends back the ack it chooses. */
    private ScriptedClient ackClient() {
        server.addExtension(new AcknowledgedMessagesExtension());
        ScriptedClient client = ScriptedClient.of(server, "b");
        client.resume((String) client.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"ext\":{\"ack\":true}}]").get(0).get("clientId"));
        client.subscribe("/q");
        return client;
    }

    private static String connect(ScriptedClient client, long ack) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\""
                + client.clientId() + "\",\"advice\":{\"timeout\":0},\"ext\":{\"ack\":" + ack + "}}]";
    }

    private static long ackOf(List<Map<String, Object>> reply) {
        Map<?, ?> ext = (Map<?, ?>) reply.get(reply.size() - 1).get("ext");
        return ((Number) ext.get("ack")).longValue();
    }

    @Test
    void unacknowledgedMessagesAreBoundedInBytes() {
        server = BayeuxServer.create(ServerOptions.builder().maxUnacknowledgedBytes(4096).build(), scheduler);
        ScriptedClient client = ackClient();
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        for (int i = 0; i < 10; i++) {
            publisher.publishJson("/q", data(i));
            client.connectNow(); // reads everything, acknowledges nothing
        }
        SessionImpl session = (SessionImpl) server.getSession(client.clientId());
        assertTrue(session.ackTracker().pendingBytes() <= 4096, session.ackTracker().pendingBytes() + " bytes kept");
        assertTrue(server.getRefusals().get(Limit.UNACKNOWLEDGED_BYTES) > 0);
    }

    @Test
    void aClientRepeatingAnOldAcknowledgementGetsItsBacklogAgainOnlyAsFarAsItsCreditGoes() {
        // Room for three messages of about 1 KB to be sent again, not four.
        server = BayeuxServer.create(ServerOptions.builder().maxResendBytes(3 * DATA_BYTES + 500).build(), scheduler);
        ScriptedClient client = ackClient();
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        for (int i = 0; i < 5; i++) {
            publisher.publishJson("/q", data(i));
        }
        List<Integer> received = new ArrayList<>();
        for (int request = 0; request < 20; request++) {
            received.addAll(numbers(client.send(connect(client, 0))));
        }
        assertEquals(List.of(0, 1, 2, 3, 4, 0, 1, 2), received, "sent once, then again as far as the credit goes");
        assertEquals(5, server.getRefusals().get(Limit.RESENDS), "two forgotten at the first loss, three at the next");
        assertTrue(server.getSession(client.clientId()).isConnected(), "the session lives on");
        assertEquals(0, ((SessionImpl) server.getSession(client.clientId())).ackTracker().pendingMessages());

        publisher.publishJson("/q", data(5));
        assertEquals(List.of(5), numbers(client.send(connect(client, 0))), "what comes later is delivered");
    }

    @Test
    void whatAClientAcknowledgesEarnsItsCreditBack() {
        server = BayeuxServer.create(ServerOptions.builder().maxResendBytes(3 * DATA_BYTES + 500).build(), scheduler);
        ScriptedClient client = ackClient();
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        long acknowledged = ackOf(client.send(connect(client, 0)));
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < 3; i++) {
                publisher.publishJson("/q", data(round * 3 + i));
            }
            client.send(connect(client, acknowledged)); // lost on its way
            List<Map<String, Object>> again = client.send(connect(client, acknowledged));
            assertEquals(List.of(round * 3, round * 3 + 1, round * 3 + 2), numbers(again), "round " + round);
            acknowledged = ackOf(again);
        }
        assertEquals(0, server.getRefusals().get(Limit.RESENDS));
    }

    @Test
    void aResendLostOnItsWayIsSentAgainInOrder() {
        server = BayeuxServer.create(ServerOptions.defaults(), scheduler);
        ScriptedClient client = ackClient();
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        publisher.publishJson("/q", data(0));
        long received = ackOf(client.send(connect(client, 0)));
        publisher.publishJson("/q", data(1));
        publisher.publishJson("/q", data(2));
        client.send(connect(client, received)); // lost on its way
        client.send(connect(client, received)); // its re-send, lost too
        List<Map<String, Object>> reply = client.send(connect(client, received));
        assertEquals(List.of(1, 2), numbers(reply), "two losses in a row lose nothing");
        assertEquals(0, server.getRefusals().get(Limit.RESENDS));
    }
}
