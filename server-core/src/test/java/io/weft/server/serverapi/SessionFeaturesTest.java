package io.weft.server.serverapi;

import static io.weft.server.serverapi.ListenersTest.data;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Extension;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SessionFeaturesTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void deliverReachesOneSessionSkippingChannelListenersButNotExtensions() {
        server.createChannelIfAbsent("/private", channel -> channel.addListener(
                (ServerChannel.MessageListener) (from, c, message) -> false));
        ScriptedClient alice = ScriptedClient.connected(server, "a");
        ScriptedClient bob = ScriptedClient.connected(server, "b");
        bob.subscribe("/private");
        ServerSession session = server.getSession(alice.clientId());
        session.addExtension(new Extension() {
            @Override
            public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
                message.put("stamped", true);
                return true;
            }
        });
        session.deliver(null, "/private", "for alice only");
        List<Map<String, Object>> replies = alice.connectNow();
        assertEquals(List.of("for alice only"), data(replies, "/private"));
        assertEquals(true, replies.get(0).get("stamped"));
        assertEquals(List.of(), data(bob.connectNow(), "/private"));
    }

    @Test
    void attributesBelongToTheSession() {
        ServerSession session = server.getSession(ScriptedClient.connected(server, "a").clientId());
        session.setAttribute("user", "alice");
        assertEquals("alice", session.getAttribute("user"));
        assertEquals(Set.of("user"), session.getAttributeNames());
        session.setAttribute("user", null);
        assertNull(session.getAttribute("user"));
        assertEquals(Set.of(), session.getAttributeNames());
    }

    @Test
    void perSessionTimingIsAdvisedAndApplied() {
        ScriptedClient client = ScriptedClient.connected(server, "a");
        ServerSession session = server.getSession(client.clientId());
        session.setTimeout(5_000);
        session.setInterval(1_000);
        session.setMaxInterval(2_000);
        CompletableFuture<String> held = client.heldConnect();
        scheduler.advance(5_000);
        Map<?, ?> advice = (Map<?, ?>) ScriptedClient.await(held).get(0).get("advice");
        assertEquals(Map.of("reconnect", "retry", "interval", 1000, "timeout", 5000), advice);
        scheduler.advance(2_999);
        assertNotNull(server.getSession(client.clientId()));
        scheduler.advance(1);
        assertNull(server.getSession(client.clientId()));
    }

    @Test
    void aBatchOfDeliveriesWakesAHeldConnectOnce() {
        ScriptedClient client = ScriptedClient.connected(server, "a");
        ServerSession session = server.getSession(client.clientId());
        CompletableFuture<String> held = client.heldConnect();
        session.batch(() -> {
            session.deliver(null, "/x", 1);
            session.deliver(null, "/x", 2);
            assertTrue(!held.isDone(), "still held inside the batch");
        });
        assertEquals(List.of(1, 2), data(ScriptedClient.await(held), "/x"));
    }

    @Test
    void aClientBetweenPollsLearnsOfAServerDisconnectOnItsNextRequest() {
        ScriptedClient client = ScriptedClient.connected(server, "a");
        server.getSession(client.clientId()).disconnect();
        Map<String, Object> reply = client.connectNow().get(0);
        assertEquals("402::session_unknown", reply.get("error"));
        assertEquals("none", ((Map<?, ?>) reply.get("advice")).get("reconnect"), "not: handshake again");
        assertEquals("handshake", ((Map<?, ?>) client.connectNow().get(0).get("advice")).get("reconnect"));
    }

    @Test
    void aServerDisconnectIsForgottenAfterMaxInterval() {
        ScriptedClient client = ScriptedClient.connected(server, "a");
        server.getSession(client.clientId()).disconnect();
        scheduler.advance(10_000);
        assertEquals("handshake", ((Map<?, ?>) client.connectNow().get(0).get("advice")).get("reconnect"));
    }

    @Test
    void serverSideDisconnectTellsAHeldPoll() {
        ScriptedClient client = ScriptedClient.connected(server, "a");
        CompletableFuture<String> held = client.heldConnect();
        server.getSession(client.clientId()).disconnect();
        List<Map<String, Object>> replies = ScriptedClient.await(held);
        assertEquals("/meta/disconnect", replies.get(0).get("channel"));
        assertEquals("none", ((Map<?, ?>) replies.get(1).get("advice")).get("reconnect"));
    }
}
