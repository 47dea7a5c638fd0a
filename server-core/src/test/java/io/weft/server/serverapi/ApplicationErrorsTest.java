package io.weft.server.serverapi;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.server.api.Authorizer;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.EndReason;
import io.weft.server.api.Extension;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Application code that throws an {@link Error} (an {@code AssertionError}, a {@code NoClassDefFoundError}: a bug, not
 * the JVM running out of memory) is treated as documented for one that throws an exception: an extension or listener
 * is skipped, a policy or authorizer denies, a service fails its call. The engine carries on, on every thread,
 * including the timer's.
 */
class ApplicationErrorsTest {
    private static final ServerOptions OPTIONS = ServerOptions.defaults();
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(OPTIONS, scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    private static AssertionError bug() {
        return new AssertionError("an application bug");
    }

    @Test
    void aHeldConnectIsAnsweredWhenAnOutgoingExtensionThrowsAnErrorOnTheTimerThread() {
        ScriptedClient client = ScriptedClient.connected(server, "b");
        server.addExtension(new Extension() {
            @Override
            public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
                throw bug();
            }
        });
        CompletableFuture<String> held = client.heldConnect();
        assertFalse(held.isDone());
        assertDoesNotThrow(() -> scheduler.advance(OPTIONS.timeout()), "the timer's task let the Error out");
        assertTrue(held.isDone(), "the held /meta/connect was never answered");
        assertEquals(true, ScriptedClient.await(held).get(0).get("successful"));
    }

    @Test
    void anOutgoingExtensionThatThrowsAnErrorForOneRecipientDoesNotStopTheFanOut() {
        ScriptedClient first = ScriptedClient.connected(server, "1");
        ScriptedClient second = ScriptedClient.connected(server, "2");
        first.subscribe("/x");
        second.subscribe("/x");
        server.addExtension(new Extension() {
            @Override
            public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
                if ("/x".equals(message.getChannel()) && to != null && to.getId().equals(first.clientId())) {
                    throw bug();
                }
                return true;
            }
        });
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        assertEquals(true, publisher.publishJson("/x", "1").get(0).get("successful"));
        assertEquals(List.of(1), data(second.connectNow()), "the other subscriber");
        assertEquals(List.of(1), data(first.connectNow()), "the recipient whose extension failed, as if it had returned true");
    }

    @Test
    void anIncomingExtensionThatThrowsAnErrorIsSkipped() {
        ScriptedClient subscriber = ScriptedClient.connected(server, "s");
        subscriber.subscribe("/x");
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        server.addExtension(new Extension() {
            @Override
            public boolean incoming(ServerSession from, Message.Mutable message) {
                throw bug();
            }
        });
        assertEquals(true, publisher.publishJson("/x", "1").get(0).get("successful"));
        assertEquals(List.of(1), data(subscriber.connectNow()));
    }

    @Test
    void aMessageListenerThatThrowsAnErrorIsSkipped() {
        ScriptedClient subscriber = ScriptedClient.connected(server, "s");
        subscriber.subscribe("/x");
        server.getChannel("/x").addListener((ServerChannel.MessageListener) (from, channel, message) -> {
            throw bug();
        });
        assertEquals(true, ScriptedClient.connected(server, "p").publishJson("/x", "1").get(0).get("successful"));
        assertEquals(List.of(1), data(subscriber.connectNow()));
    }

    @Test
    void aSessionListenerThatThrowsAnErrorDoesNotStopAnExpiry() {
        List<EndReason> told = new CopyOnWriteArrayList<>();
        server.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionRemoved(ServerSession session, EndReason reason) {
                throw bug();
            }
        });
        server.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionRemoved(ServerSession session, EndReason reason) {
                told.add(reason);
            }
        });
        ScriptedClient client = ScriptedClient.connected(server, "b");
        assertDoesNotThrow(() -> scheduler.advance(OPTIONS.interval() + OPTIONS.maxInterval() + 1),
                "the timer's task let the Error out");
        assertNull(server.getSession(client.clientId()), "the session expired");
        assertEquals(List.of(EndReason.TIMED_OUT), told, "the next listener is told");
        assertEquals(1, scheduler.pending(), "only the channel sweep is left scheduled");
    }

    @Test
    void aSecurityPolicyThatThrowsAnErrorDenies() {
        server.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canPublish(BayeuxServer s, ServerSession session, ChannelId channel, Message message) {
                throw bug();
            }
        });
        ScriptedClient client = ScriptedClient.connected(server, "b");
        assertEquals("403::publish_denied", client.publishJson("/x", "1").get(0).get("error"));
        assertEquals(true, client.subscribe("/x").get("successful"), "the server carries on");
    }

    @Test
    void anAuthorizerThatThrowsAnErrorDenies() {
        server.createChannelIfAbsent("/x", channel -> {
            channel.setPersistent(true);
            channel.addAuthorizer((operation, id, session, message) -> {
                throw bug();
            });
        });
        ScriptedClient client = ScriptedClient.connected(server, "b");
        assertEquals("403::subscribe_denied", client.subscribe("/x").get("error"));
        assertEquals(true, client.subscribe("/y").get("successful"), "the server carries on");
        assertTrue(Authorizer.Result.deny().isDenied());
    }

    @Test
    void aServiceThatThrowsAnErrorFailsItsCall() {
        server.addService("/service/broken", (from, request, answer) -> {
            throw bug();
        });
        ScriptedClient client = ScriptedClient.connected(server, "b");
        Map<String, Object> reply = client.publishJson("/service/broken", "1").get(0);
        assertEquals(false, reply.get("successful"));
        assertEquals("500::service_failed", reply.get("error"));
        assertEquals(true, client.subscribe("/y").get("successful"), "the server carries on");
    }

    private static List<Object> data(List<Map<String, Object>> messages) {
        return messages.stream().filter(m -> "/x".equals(m.get("channel")) && m.containsKey("data"))
                .map(m -> m.get("data")).toList();
    }
}
