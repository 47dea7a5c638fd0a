package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Extension;
import io.weft.server.api.LocalSession;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What one recipient's extensions do stays with that recipient; what application code throws (Errors included)
 * harms neither the other recipients nor the batch; server-side clients are not fooled by what they receive.
 */
class RecipientIsolationTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    private static Object data(List<Map<String, Object>> replies, String channel) {
        return replies.stream().filter(m -> channel.equals(m.get("channel"))).findFirst().orElseThrow().get("data");
    }

    @Test
    void anOutgoingExtensionThatEditsNestedDataEditsOnlyItsRecipientsCopy() {
        List<ScriptedClient> clients = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ScriptedClient client = ScriptedClient.connected(server, "b" + i);
            client.subscribe("/room");
            clients.add(client);
        }
        String marked = clients.get(1).clientId();
        server.addExtension(new Extension() {
            @Override
            public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
                if ("/room".equals(message.getChannel()) && to != null && to.getId().equals(marked)) {
                    message.getDataAsMap().put("for", "you");
                    @SuppressWarnings("unchecked")
                    Map<String, Object> inner = (Map<String, Object>) message.getDataAsMap().get("inner");
                    inner.put("deep", "changed");
                }
                return true;
            }
        });
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        long before = server.getStats().messagesEncoded();
        publisher.publishJson("/room", "{\"text\":\"hi\",\"inner\":{\"deep\":\"as sent\"}}");
        Map<String, Object> original = Map.of("text", "hi", "inner", Map.of("deep", "as sent"));
        assertEquals(original, data(clients.get(0).connectNow(), "/room"));
        assertEquals(Map.of("text", "hi", "for", "you", "inner", Map.of("deep", "changed")),
                data(clients.get(1).connectNow(), "/room"));
        assertEquals(original, data(clients.get(2).connectNow(), "/room"));
        // The publish reply, three connect replies, and the delivery twice: shared once, the changed copy once.
        assertEquals(6, server.getStats().messagesEncoded() - before);
    }

    @Test
    void aFrozenMessageIsReadOnlyAtEveryDepth() {
        AtomicReference<Message> seen = new AtomicReference<>();
        ScriptedClient client = ScriptedClient.connected(server, "b");
        client.subscribe("/room");
        server.getSession(client.clientId()).addListener((ServerSession.QueueListener) (session, message) ->
                seen.set(message));
        ScriptedClient.connected(server, "p").publishJson("/room", "{\"inner\":{\"list\":[{\"x\":1}]}}");
        Message frozen = seen.get();
        @SuppressWarnings("unchecked")
        Map<String, Object> inner = (Map<String, Object>) frozen.getDataAsMap().get("inner");
        assertThrows(UnsupportedOperationException.class, () -> inner.put("y", 2));
        @SuppressWarnings("unchecked")
        List<Object> list = (List<Object>) inner.get("list");
        assertThrows(UnsupportedOperationException.class, () -> list.add(3));
        @SuppressWarnings("unchecked")
        Map<String, Object> element = (Map<String, Object>) list.get(0);
        assertThrows(UnsupportedOperationException.class, () -> element.put("x", 2));
        assertThrows(UnsupportedOperationException.class, () -> frozen.asMap().put("data", 1));
    }

    @Test
    void anErrorThrownForOneRecipientDoesNotEndTheFanOutAndTheBatchIsAnswered() {
        List<ScriptedClient> clients = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ScriptedClient client = ScriptedClient.connected(server, "b" + i);
            client.subscribe("/room");
            clients.add(client);
        }
        String cursed = clients.get(0).clientId();
        server.addExtension(new Extension() {
            @Override
            public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
                if ("/room".equals(message.getChannel()) && to != null && to.getId().equals(cursed)) {
                    throw new StackOverflowError("application bug");
                }
                return true;
            }
        });
        server.createChannelIfAbsent("/room").addListener((ServerChannel.MessageListener) (from, channel, message) -> {
            throw new AssertionError("another application bug");
        });
        List<Map<String, Object>> reply = ScriptedClient.connected(server, "p").publishJson("/room", "\"hello\"");
        assertEquals(true, reply.get(0).get("successful"), "the publisher is answered");
        assertEquals("hello", data(clients.get(1).connectNow(), "/room"));
        assertEquals("hello", data(clients.get(2).connectNow(), "/room"));
    }

    @Test
    void aServiceThatThrowsAnErrorIsAnsweredWithAnErrorReply() {
        server.addService("/service/crash", (from, request, answer) -> {
            throw new StackOverflowError("deep");
        });
        Map<String, Object> reply = ScriptedClient.connected(server, "b").publishJson("/service/crash", "1").get(0);
        assertEquals(false, reply.get("successful"));
        assertEquals("500::service_failed", reply.get("error"));
    }

    @Test
    void aLocalSessionDoesNotTakeADeliveryForTheReplyItWaitsFor() {
        CompletableFuture<Promise<Boolean>> held = new CompletableFuture<>();
        server.createChannelIfAbsent("/slow").addListener((ServerChannel.AsyncMessageListener)
                (from, channel, message, proceed) -> held.complete(proceed));
        LocalSession local = server.newLocalSession("bot");
        local.handshake();
        List<Message> deliveries = new ArrayList<>();
        local.subscribe("/bot/inbox", deliveries::add);
        CompletableFuture<Message> reply = new CompletableFuture<>();
        local.publish("/slow", "x", Promise.from(reply::complete, reply::completeExceptionally));
        assertFalse(reply.isDone(), "the listener holds the publish");
        // Anything that reaches the local session looking like that reply (same id, successful) is not it.
        Message.Mutable forged = Message.Mutable.create().setChannel("/bot/inbox").setId("bot-3").setSuccessful(true);
        forged.setData("forged");
        local.getServerSession().deliver(null, forged);
        assertFalse(reply.isDone(), "a delivery is never taken for a reply");
        assertEquals(1, deliveries.size());
        held.join().succeed(true);
        assertTrue(reply.join().isSuccessful());
    }
}
