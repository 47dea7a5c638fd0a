package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Connection;
import io.weft.server.spi.Engine;
import io.weft.server.spi.Inbound;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Who receives a publish: subscribers of the channel and of its wildcards, once each; never for /service/. */
class FanOutTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    /** Clients may subscribe to the root wildcards here: these tests are about who receives what. */
    private BayeuxServer server = BayeuxServer.create(ServerOptions.builder().clientRootWildcards(true).build(),
            scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    private static List<Object> data(List<Map<String, Object>> replies, String channel) {
        List<Object> data = new ArrayList<>();
        for (Map<String, Object> message : replies) {
            if (channel.equals(message.get("channel")) && message.containsKey("data")) {
                data.add(message.get("data"));
            }
        }
        return data;
    }

    @Test
    void wildcardSubscribersReceiveMatchingChannels() {
        ScriptedClient one = ScriptedClient.connected(server, "1");
        one.subscribe("/news/*");
        ScriptedClient deep = ScriptedClient.connected(server, "2");
        deep.subscribe("/news/**");
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        publisher.publishJson("/news/sport", "1");
        publisher.publishJson("/news/sport/tennis", "2");
        publisher.publishJson("/weather", "3");
        assertEquals(List.of(1), data(one.connectNow(), "/news/sport"));
        List<Map<String, Object>> deepReplies = deep.connectNow();
        assertEquals(List.of(1), data(deepReplies, "/news/sport"));
        assertEquals(List.of(2), data(deepReplies, "/news/sport/tennis"));
    }

    @Test
    void aSessionSubscribedThroughSeveralMatchingChannelsGetsOneCopy() {
        ScriptedClient client = ScriptedClient.connected(server, "1");
        client.send("[{\"channel\":\"/meta/subscribe\",\"clientId\":\"" + client.clientId()
                + "\",\"subscription\":[\"/a/b\",\"/a/*\",\"/a/**\",\"/**\"]}]");
        ScriptedClient.connected(server, "p").publishJson("/a/b", "\"once\"");
        assertEquals(List.of("once"), data(client.connectNow(), "/a/b"));
    }

    @Test
    void servicePublishesAreAcknowledgedButNeverBroadcast() {
        ScriptedClient listener = ScriptedClient.connected(server, "1");
        listener.send("[{\"channel\":\"/meta/subscribe\",\"clientId\":\"" + listener.clientId()
                + "\",\"subscription\":[\"/service/echo\",\"/**\",\"/service/**\"]}]");
        List<Map<String, Object>> reply = ScriptedClient.connected(server, "p").publishJson("/service/echo", "1");
        assertEquals(true, reply.get(0).get("successful"));
        assertEquals(List.of(), data(listener.connectNow(), "/service/echo"));
    }

    @Test
    void thePublisherReceivesItsOwnMessageByDefault() {
        ScriptedClient client = ScriptedClient.connected(server, "1");
        client.subscribe("/me");
        List<Map<String, Object>> replies = client.publishJson("/me", "\"mine\"");
        assertEquals(true, replies.get(0).get("successful"));
        assertEquals(List.of("mine"), data(client.connectNow(), "/me"));
    }

    @Test
    void broadcastToPublisherCanBeTurnedOff() {
        server.close();
        server = BayeuxServer.create(ServerOptions.builder().broadcastToPublisher(false).build(), scheduler);
        ScriptedClient client = ScriptedClient.connected(server, "1");
        client.subscribe("/me");
        ScriptedClient other = ScriptedClient.connected(server, "2");
        other.subscribe("/me");
        client.publishJson("/me", "1");
        assertEquals(List.of(), data(client.connectNow(), "/me"));
        assertEquals(List.of(1), data(other.connectNow(), "/me"));
    }

    @Test
    void aDeliveryCarriesOnlyChannelAndDataNeverThePublishersReplyFieldsAdviceOrPrivateFields() {
        ScriptedClient client = ScriptedClient.connected(server, "1");
        client.subscribe("/c");
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        publisher.send("[{\"channel\":\"/c\",\"clientId\":\"" + publisher.clientId()
                + "\",\"data\":1,\"id\":\"9\",\"ext\":{\"token\":\"secret\"},\"advice\":{\"reconnect\":\"none\"},"
                + "\"successful\":false,\"error\":\"402::session_unknown\",\"subscription\":\"/x\",\"custom\":2}]");
        Map<String, Object> delivered = client.connectNow().get(0);
        assertEquals(Map.of("channel", "/c", "data", 1), delivered);
    }

    @Test
    void aPublishIsEncodedOnceForAnyNumberOfSubscribers() {
        int subscribers = 50;
        List<ScriptedClient> clients = new ArrayList<>();
        List<CompletableFuture<String>> held = new ArrayList<>();
        for (int i = 0; i < subscribers; i++) {
            ScriptedClient client = ScriptedClient.connected(server, "b" + i);
            client.subscribe("/room");
            clients.add(client);
            held.add(client.heldConnect());
        }
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        long before = server.getStats().messagesEncoded();
        publisher.publishJson("/room", "{\"text\":\"to everyone\"}");
        for (CompletableFuture<String> response : held) {
            assertEquals(List.of(Map.of("text", "to everyone")), data(ScriptedClient.await(response), "/room"));
        }
        // The delivered message once, plus each session's own connect reply, plus the publisher's reply.
        assertEquals(1 + subscribers + 1, server.getStats().messagesEncoded() - before);
    }

    @Test
    void everySubscriberGetsTheSameMessageInstance() {
        List<List<Message>> received = Collections.synchronizedList(new ArrayList<>());
        List<Inbound> inbounds = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            inbounds.add(Engine.of(server).open(recordingSocket(received)));
        }
        Engine.of(server).addConnectionType("websocket");
        for (Inbound inbound : inbounds) {
            inbound.receive(decode("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\"}]"));
        }
        List<String> ids = new ArrayList<>();
        for (List<Message> frame : received) {
            ids.add(frame.get(0).getClientId());
        }
        for (int i = 0; i < 3; i++) {
            inbounds.get(i).receive(decode("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/s\",\"clientId\":\""
                    + ids.get(i) + "\"}]"));
        }
        received.clear();
        inbounds.get(0).receive(decode("[{\"channel\":\"/s\",\"data\":1,\"clientId\":\"" + ids.get(0) + "\"}]"));
        List<Message> deliveries = new ArrayList<>();
        for (List<Message> frame : received) {
            for (Message message : frame) {
                if ("/s".equals(message.getChannel()) && message.getData() != null) {
                    deliveries.add(message);
                }
            }
        }
        assertEquals(3, deliveries.size());
        assertSame(deliveries.get(0), deliveries.get(1));
        assertSame(deliveries.get(1), deliveries.get(2));
    }

    private List<Message.Mutable> decode(String json) {
        try {
            return Engine.of(server).codec().decode(json);
        } catch (Exception x) {
            throw new AssertionError(x);
        }
    }

    private static Connection recordingSocket(List<List<Message>> frames) {
        return new Connection() {
            @Override
            public String type() {
                return "websocket";
            }

            @Override
            public boolean isPersistent() {
                return true;
            }

            @Override
            public String browserId() {
                return null;
            }

            @Override
            public void send(List<Message> messages, Promise<Void> written) {
                frames.add(List.copyOf(messages));
                written.succeed(null);
            }
        };
    }

    @Test
    void manyMessagesPublishedInOneBatchResumeAHeldPollOnce() {
        ScriptedClient client = ScriptedClient.connected(server, "1");
        client.subscribe("/burst");
        CompletableFuture<String> held = client.heldConnect();
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i < 10; i++) {
            batch.append(i == 0 ? "" : ",").append("{\"channel\":\"/burst\",\"data\":").append(i)
                    .append(",\"clientId\":\"").append(publisher.clientId()).append("\"}");
        }
        publisher.send(batch.append("]").toString());
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), data(ScriptedClient.await(held), "/burst"));
        assertFalse(client.heldConnect().isDone(), "nothing left over");
        assertTrue(server.getSession(client.clientId()).getQueueSize() == 0);
    }
}
