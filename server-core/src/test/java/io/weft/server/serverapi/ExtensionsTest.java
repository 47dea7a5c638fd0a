package io.weft.server.serverapi;

import static io.weft.server.serverapi.ListenersTest.data;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Extension;
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

class ExtensionsTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);
    private final List<String> order = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        server.close();
    }

    private Extension recording(String name) {
        return new Extension() {
            @Override
            public boolean incoming(ServerSession from, Message.Mutable message) {
                if (!message.isMeta()) {
                    order.add(name + " in");
                }
                return true;
            }

            @Override
            public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
                if (!message.isMeta() && message.getData() != null) {
                    order.add(name + " out");
                }
                return true;
            }
        };
    }

    @Test
    void extensionsRunInOneFixedOrder() {
        server.addExtension(recording("server1"));
        server.addExtension(recording("server2"));
        ScriptedClient client = ScriptedClient.connected(server, "a");
        client.subscribe("/x");
        ServerSession session = server.getSession(client.clientId());
        session.addExtension(recording("session1"));
        session.addExtension(recording("session2"));
        client.publishJson("/x", "1");
        assertEquals(List.of("server1 in", "server2 in", "session1 in", "session2 in",
                "session2 out", "session1 out", "server2 out", "server1 out"), order);
    }

    @Test
    void anIncomingExtensionCanDeleteAMessage() {
        server.addExtension(new Extension() {
            @Override
            public boolean incoming(ServerSession from, Message.Mutable message) {
                return !"/forbidden".equals(message.getChannel());
            }
        });
        assertEquals("404::message_deleted", ScriptedClient.connected(server, "a").publishJson("/forbidden", "1").get(0).get("error"));
    }

    @Test
    void anOutgoingChangeIsThisRecipientsOwnAndTheSharedCopyIsEncodedOnce() {
        ScriptedClient plain = ScriptedClient.connected(server, "plain");
        plain.subscribe("/x");
        ScriptedClient tagged = ScriptedClient.connected(server, "tagged");
        tagged.subscribe("/x");
        ScriptedClient plain2 = ScriptedClient.connected(server, "plain2");
        plain2.subscribe("/x");
        server.getSession(tagged.clientId()).addExtension(new Extension() {
            @Override
            public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
                if (!message.isMeta()) {
                    message.setData("changed for tagged");
                }
                return true;
            }
        });
        long before = server.getStats().messagesEncoded();
        ScriptedClient.connected(server, "w").publishJson("/x", "\"original\"");
        assertEquals(List.of("original"), data(plain.connectNow(), "/x"));
        assertEquals(List.of("changed for tagged"), data(tagged.connectNow(), "/x"));
        assertEquals(List.of("original"), data(plain2.connectNow(), "/x"));
        long deliveredEncodings = server.getStats().messagesEncoded() - before
                - 1 /* the publish reply */ - 1 /* the publisher's handshake reply */ - 1 /* its connect reply */
                - 3 /* the three connect replies */;
        assertEquals(2, deliveredEncodings, "the shared message once, the changed copy once");
    }

    @Test
    void anOutgoingExtensionCanDropAMessageForOneRecipient() {
        ScriptedClient reader = ScriptedClient.connected(server, "r");
        reader.subscribe("/x");
        server.getSession(reader.clientId()).addExtension(new Extension() {
            @Override
            public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
                return message.isMeta();
            }
        });
        ScriptedClient.connected(server, "w").publishJson("/x", "1");
        assertEquals(List.of(), data(reader.connectNow(), "/x"));
    }

    @Test
    void aThrowingExtensionIsSkippedAndOtherSessionsAreUnaffected() {
        server.addExtension(new Extension() {
            @Override
            public boolean incoming(ServerSession from, Message.Mutable message) {
                if (!message.isMeta()) {
                    throw new IllegalStateException("extension bug");
                }
                return true;
            }

            @Override
            public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
                throw new IllegalStateException("extension bug");
            }
        });
        ScriptedClient reader = ScriptedClient.connected(server, "r");
        reader.subscribe("/x");
        assertEquals(true, ScriptedClient.connected(server, "w").publishJson("/x", "1").get(0).get("successful"));
        assertEquals(List.of(1), data(reader.connectNow(), "/x"));
    }

    @Test
    void anAsyncIncomingExtensionHoldsItsMessageUntilItAnswers() {
        AtomicReference<Promise<Boolean>> waiting = new AtomicReference<>();
        server.addExtension(new Extension() {
            @Override
            public void incoming(ServerSession from, Message.Mutable message, Promise<Boolean> promise) {
                if (message.isMeta()) {
                    promise.succeed(true);
                } else {
                    waiting.set(promise);
                }
            }
        });
        ScriptedClient client = ScriptedClient.connected(server, "a");
        CompletableFuture<String> reply = client.sendAsync("[{\"channel\":\"/x\",\"data\":1,\"clientId\":\""
                + client.clientId() + "\"}]");
        assertFalse(reply.isDone());
        waiting.get().succeed(false);
        assertEquals("404::message_deleted", ScriptedClient.await(reply).get(0).get("error"));
    }

    @Test
    void outgoingExtensionsSeeTheRequestAReplyAnswers() {
        AtomicReference<Object> seen = new AtomicReference<>();
        server.addExtension(new Extension() {
            @Override
            public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
                if ("/meta/handshake".equals(message.getChannel())) {
                    seen.set(message.getAssociated().getExt().get("token"));
                    message.getExt(true).put("welcome", true);
                }
                return true;
            }
        });
        ScriptedClient client = ScriptedClient.of(server, "a");
        Map<String, Object> reply = client.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"ext\":{\"token\":\"t1\"}}]").get(0);
        assertEquals("t1", seen.get());
        assertEquals(Map.of("welcome", true), reply.get("ext"));
        assertNull(server.getSession("nope"));
    }
}
