package io.weft.server.serverapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.Authorizer;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.LocalSession;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SecurityTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void aTransportWhoseConnectionsCallThemselvesLocalIsAskedLikeAnyOther() {
        server.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canHandshake(BayeuxServer bayeux, ServerSession session, Message message) {
                return false;
            }
        });
        ScriptedClient forger = new ScriptedClient(InMemoryTransport.of(server, "local", false), "forger");
        Map<String, Object> reply = forger.handshake();
        assertEquals(false, reply.get("successful"), "only newLocalSession() makes a local session: " + reply);
        assertEquals("403::handshake_denied", reply.get("error"));
        assertTrue(server.getSessions().isEmpty());
        LocalSession trusted = server.newLocalSession("trusted");
        trusted.handshake();
        assertTrue(trusted.isConnected(), "server code is not asked");
    }

    @Test
    void anyDenyWinsAndItsReasonReachesTheClient() {
        server.createChannelIfAbsent("/members/**").addAuthorizer((op, channel, session, message) ->
                Authorizer.Result.grant());
        server.createChannelIfAbsent("/members/vip").addAuthorizer((op, channel, session, message) ->
                op == Authorizer.Operation.PUBLISH ? Authorizer.Result.deny("vip only") : Authorizer.Result.ignore());
        ScriptedClient client = ScriptedClient.connected(server, "a");
        assertEquals(true, client.subscribe("/members/vip").get("successful"));
        assertEquals("403:vip only:publish_denied", client.publishJson("/members/vip", "1").get(0).get("error"));
        assertEquals(true, client.publishJson("/members/lounge", "1").get(0).get("successful"));
    }

    @Test
    void authorizersThatOnlyIgnoreDeny() {
        server.createChannelIfAbsent("/closed/*").addAuthorizer((op, channel, session, message) ->
                Authorizer.Result.ignore());
        server.createChannelIfAbsent("/closed/x", channel -> channel.setPersistent(true));
        ScriptedClient client = ScriptedClient.connected(server, "a");
        assertEquals("403::subscribe_denied", client.subscribe("/closed/x").get("error"));
        assertEquals("403::create_denied", client.subscribe("/closed/y").get("error"), "creating is asked first");
        assertEquals(true, client.subscribe("/open/x").get("successful"), "no authorizers: the policy decides");
    }

    @Test
    void creatingAChannelIsAskedAbout() {
        server.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canCreate(BayeuxServer s, ServerSession session, ChannelId channel, Message message) {
                return false;
            }
        });
        server.createChannelIfAbsent("/existing", channel -> channel.setPersistent(true));
        ScriptedClient client = ScriptedClient.connected(server, "a");
        assertEquals("403::create_denied", client.subscribe("/new").get("error"));
        assertEquals(true, client.subscribe("/existing").get("successful"));
    }

    @Test
    void anAuthorizerThatThrowsDenies() {
        server.createChannelIfAbsent("/buggy").addAuthorizer((op, channel, session, message) -> {
            throw new IllegalStateException("authorizer bug");
        });
        assertEquals("403::subscribe_denied", ScriptedClient.connected(server, "a").subscribe("/buggy").get("error"));
    }

    @Test
    void anAsynchronousPolicyAnswersLater() {
        AtomicReference<Promise<Boolean>> waiting = new AtomicReference<>();
        server.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public void canHandshake(BayeuxServer s, ServerSession session, Message handshake, Promise<Boolean> answer) {
                waiting.set(answer);
            }
        });
        ScriptedClient client = ScriptedClient.of(server, "a");
        CompletableFuture<String> reply = client.sendAsync("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\"}]");
        assertFalse(reply.isDone());
        waiting.get().succeed(true);
        assertEquals(true, ScriptedClient.await(reply).get(0).get("successful"));
    }
}
