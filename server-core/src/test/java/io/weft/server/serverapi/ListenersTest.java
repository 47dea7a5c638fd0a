package io.weft.server.serverapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.EndReason;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ListenersTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);
    private final List<String> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        server.close();
    }

    static List<Object> data(List<Map<String, Object>> messages, String channel) {
        return messages.stream().filter(m -> channel.equals(m.get("channel")) && m.containsKey("data"))
                .map(m -> m.get("data")).toList();
    }

    @Test
    void sessionListenersTellATimeoutFromADisconnect() {
        server.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, Message handshake) {
                events.add("added " + handshake.getChannel());
            }

            @Override
            public void sessionRemoved(ServerSession session, EndReason reason) {
                events.add("removed " + reason);
            }
        });
        ScriptedClient.connected(server, "a").disconnect();
        ScriptedClient.connected(server, "b");
        scheduler.advance(10_000);
        assertEquals(List.of("added /meta/handshake", "removed DISCONNECTED", "added /meta/handshake",
                "removed TIMED_OUT"), events);
    }

    @Test
    void channelListenersHearOfCreationAndSweeping() {
        server.addListener(new BayeuxServer.ChannelListener() {
            @Override
            public void channelAdded(ServerChannel channel) {
                events.add("added " + channel.getId());
            }

            @Override
            public void channelRemoved(ChannelId channel) {
                events.add("removed " + channel);
            }
        });
        ScriptedClient client = ScriptedClient.connected(server, "a");
        client.subscribe("/news/sport");
        client.unsubscribe("/news/sport");
        for (int i = 0; i < 10; i++) {
            scheduler.advance(1_000);
            client.connectNow();
        }
        assertEquals(List.of("added /news", "added /news/sport", "removed /news/sport", "removed /news"), events);
    }

    @Test
    void subscriptionListenersOnTheServerAndOnTheChannel() {
        server.addListener(new BayeuxServer.SubscriptionListener() {
            @Override
            public void subscribed(ServerSession session, ServerChannel channel, Message message) {
                events.add("server subscribed " + channel.getId() + " " + (message != null));
            }

            @Override
            public void unsubscribed(ServerSession session, ServerChannel channel, Message message) {
                events.add("server unsubscribed " + channel.getId() + " " + (message != null));
            }
        });
        server.createChannelIfAbsent("/room", channel -> channel.addListener(new ServerChannel.SubscriptionListener() {
            @Override
            public void subscribed(ServerSession session, ServerChannel c, Message message) {
                events.add("channel subscribed");
            }

            @Override
            public void unsubscribed(ServerSession session, ServerChannel c, Message message) {
                events.add("channel unsubscribed");
            }
        }));
        ScriptedClient client = ScriptedClient.connected(server, "a");
        client.subscribe("/room");
        client.unsubscribe("/room");
        client.subscribe("/room");
        client.disconnect();
        assertEquals(List.of("server subscribed /room true", "channel subscribed", "server unsubscribed /room true",
                "channel unsubscribed", "server subscribed /room true", "channel subscribed",
                "server unsubscribed /room false", "channel unsubscribed"), events);
    }

    @Test
    void aMessageListenerCanVetoAndThePublisherIsTold() {
        server.createChannelIfAbsent("/chat", channel -> channel.addListener(
                (ServerChannel.MessageListener) (from, c, message) -> !"spam".equals(message.getData())));
        ScriptedClient reader = ScriptedClient.connected(server, "r");
        reader.subscribe("/chat");
        ScriptedClient writer = ScriptedClient.connected(server, "w");
        assertEquals("404::message_deleted", writer.publishJson("/chat", "\"spam\"").get(0).get("error"));
        assertEquals(true, writer.publishJson("/chat", "\"ham\"").get(0).get("successful"));
        assertEquals(List.of("ham"), data(reader.connectNow(), "/chat"));
    }

    @Test
    void aListenerOnAWildcardAncestorSeesAndChangesTheMessageBeforeFanOut() {
        server.createChannelIfAbsent("/chat/**", channel -> channel.addListener(
                (ServerChannel.MessageListener) (from, c, message) -> {
                    message.setData(Map.of("text", message.getDataAsMap().get("text"), "from",
                            from == null ? "server" : "client", "seenOn", c.getId()));
                    return true;
                }));
        ScriptedClient reader = ScriptedClient.connected(server, "r");
        reader.subscribe("/chat/room");
        ScriptedClient.connected(server, "w").publishJson("/chat/room", "{\"text\":\"hi\"}");
        assertEquals(List.of(Map.of("text", "hi", "from", "client", "seenOn", "/chat/**")),
                data(reader.connectNow(), "/chat/room"));
    }

    @Test
    void anAsyncMessageListenerHoldsThePublishUntilItAnswers() {
        AtomicReference<Promise<Boolean>> waiting = new AtomicReference<>();
        server.createChannelIfAbsent("/slow", channel -> channel.addListener(
                (ServerChannel.AsyncMessageListener) (from, c, message, proceed) -> waiting.set(proceed)));
        ScriptedClient reader = ScriptedClient.connected(server, "r");
        reader.subscribe("/slow");
        ScriptedClient writer = ScriptedClient.connected(server, "w");
        CompletableFuture<String> reply = writer.sendAsync("[{\"channel\":\"/slow\",\"data\":1,\"clientId\":\""
                + writer.clientId() + "\"}]");
        assertFalse(reply.isDone());
        waiting.get().succeed(true);
        assertEquals(true, ScriptedClient.await(reply).get(0).get("successful"));
        assertEquals(List.of(1), data(reader.connectNow(), "/slow"));
    }

    @Test
    void queueListenersHearOfQueuedAndFull() {
        server.close();
        BayeuxServer small = BayeuxServer.create(ServerOptions.builder().maxQueue(2).build(), scheduler);
        try {
            ScriptedClient reader = ScriptedClient.of(small, "r");
            reader.handshake();
            reader.subscribe("/q");
            ServerSession session = small.getSession(reader.clientId());
            session.addListener((ServerSession.QueueListener) (s, m) -> events.add("queued " + m.getData()));
            session.addListener((ServerSession.QueueFullListener) (s, m) -> events.add("full " + m.getData()));
            ScriptedClient writer = ScriptedClient.of(small, "w");
            writer.handshake();
            for (int i = 1; i <= 3; i++) {
                writer.publishJson("/q", String.valueOf(i));
            }
            assertEquals(List.of("queued 1", "queued 2", "full 3", "queued 3"), events);
        } finally {
            small.close();
        }
    }

    @Test
    void aThrowingListenerIsSkippedAndHarmsNobody() {
        server.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, Message handshake) {
                throw new IllegalStateException("listener bug");
            }
        });
        server.createChannelIfAbsent("/t", channel -> {
            channel.addListener((ServerChannel.MessageListener) (from, c, message) -> {
                throw new IllegalStateException("listener bug");
            });
            channel.addListener((ServerChannel.MessageListener) (from, c, message) -> {
                events.add("second listener ran");
                return true;
            });
        });
        ScriptedClient reader = ScriptedClient.connected(server, "r");
        reader.subscribe("/t");
        assertEquals(true, ScriptedClient.connected(server, "w").publishJson("/t", "1").get(0).get("successful"));
        assertEquals(List.of(1), data(reader.connectNow(), "/t"));
        assertEquals(List.of("second listener ran"), events);
        assertTrue(server.getSession(reader.clientId()).isConnected());
    }

    @Test
    void aSessionRemovedListenerIsToldOnce() {
        ScriptedClient client = ScriptedClient.connected(server, "a");
        ServerSession session = server.getSession(client.clientId());
        session.addListener((ServerSession.RemovedListener) (s, reason) -> events.add("removed " + reason));
        session.disconnect();
        session.disconnect();
        assertEquals(List.of("removed SERVER_DISCONNECT"), events);
        assertNull(server.getSession(client.clientId()));
    }
}
