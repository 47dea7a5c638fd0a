package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.MessageDecodeException;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Bad input gets a Bayeux error reply the official clients understand, and never spoils the rest of a batch. */
class ErrorRepliesTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);
    private ScriptedClient client;

    @BeforeEach
    void handshake() {
        client = ScriptedClient.of(server, "browser");
        client.handshake();
    }

    @AfterEach
    void close() {
        server.close();
    }

    private Map<String, Object> one(String message) {
        List<Map<String, Object>> replies = client.send("[" + message + "]");
        assertEquals(1, replies.size(), replies.toString());
        return replies.get(0);
    }

    @Test
    void unknownClientIsToldToHandshake() {
        Map<String, Object> reply = one("{\"channel\":\"/meta/connect\",\"clientId\":\"nope\",\"id\":\"5\"}");
        assertEquals(false, reply.get("successful"));
        assertEquals("402::session_unknown", reply.get("error"));
        assertEquals("handshake", ((Map<?, ?>) reply.get("advice")).get("reconnect"));
        assertEquals("5", reply.get("id"));
        assertEquals("/meta/connect", reply.get("channel"));
    }

    @Test
    void missingClientIdIsAnUnknownSession() {
        assertEquals("402::session_unknown", one("{\"channel\":\"/chat/a\",\"data\":1}").get("error"));
    }

    @Test
    void missingChannel() {
        Map<String, Object> reply = one("{\"id\":\"3\",\"data\":1}");
        assertEquals("400::channel_missing", reply.get("error"));
        assertEquals("3", reply.get("id"));
    }

    @Test
    void invalidChannels() {
        for (String channel : List.of("\"nochannel\"", "\"/a//b\"", "\"/a/*/b\"", "7")) {
            Map<String, Object> reply = one("{\"channel\":" + channel + ",\"clientId\":\"" + client.clientId()
                    + "\",\"data\":1}");
            assertEquals("405::channel_invalid", reply.get("error"), channel);
        }
    }

    @Test
    void publishingToAWildcardIsInvalid() {
        assertEquals("405::channel_invalid", client.publishJson("/chat/*", "1").get(0).get("error"));
    }

    @Test
    void clientsMayNotUseMetaChannelsThemselves() {
        assertEquals("403::subscribe_denied", client.subscribe("/meta/connect").get("error"));
        assertEquals("403::subscribe_denied", client.subscribe("/meta/**").get("error"));
        assertEquals("403::publish_denied", client.publishJson("/meta/other", "1").get(0).get("error"));
    }

    @Test
    void subscribeWithoutSubscriptionOrWithABadOne() {
        assertEquals("400::subscription_missing", one("{\"channel\":\"/meta/subscribe\",\"clientId\":\""
                + client.clientId() + "\"}").get("error"));
        Map<String, Object> reply = one("{\"channel\":\"/meta/subscribe\",\"clientId\":\"" + client.clientId()
                + "\",\"subscription\":[\"/ok\",\"bad\"]}");
        assertEquals("405:bad:channel_invalid", reply.get("error"));
        assertEquals(List.of("/ok", "bad"), reply.get("subscription"));
        assertTrue(server.getSession(client.clientId()).getSubscriptions().isEmpty(), "all or nothing");
    }

    @Test
    void wrongFieldTypesAreInvalidMessages() {
        assertEquals("400::message_invalid", one("{\"channel\":\"/meta/connect\",\"clientId\":42}").get("error"));
        assertEquals("400::message_invalid", one("{\"channel\":\"/chat/a\",\"ext\":[1]}").get("error"));
        assertEquals("400::message_invalid", one("{\"channel\":\"/meta/subscribe\",\"subscription\":{}}").get("error"));
    }

    @Test
    void aMalformedMessageGetsItsOwnErrorAndTheRestOfTheBatchIsProcessed() {
        String id = client.clientId();
        List<Map<String, Object>> replies = client.send("[\"junk\",{\"channel\":\"/meta/subscribe\",\"clientId\":\""
                + id + "\",\"subscription\":\"/a\",\"id\":\"s\"},{\"data\":1,\"id\":\"m\"},{\"channel\":\"/a\","
                + "\"clientId\":\"" + id + "\",\"data\":2,\"id\":\"p\"}]");
        assertEquals(4, replies.size() - deliveries(replies), replies.toString());
        assertEquals("400::message_invalid", replies.get(0).get("error"));
        assertEquals(true, replies.get(1).get("successful"));
        assertEquals("400::channel_missing", replies.get(2).get("error"));
        assertEquals(true, replies.get(3).get("successful"));
        assertEquals("p", replies.get(3).get("id"));
    }

    private static int deliveries(List<Map<String, Object>> replies) {
        return (int) replies.stream().filter(m -> m.containsKey("data")).count();
    }

    @Test
    void aBodyThatIsNotJsonIsAnErrorForTheTransport() {
        ExecutionException x = assertThrows(ExecutionException.class, () -> client.sendAsync("{oops").get());
        assertTrue(x.getCause() instanceof MessageDecodeException);
        assertFalse(x.getCause().getMessage().isBlank());
    }

    @Test
    void repliesEchoTheRequestId() {
        assertEquals("abc", one("{\"channel\":\"/meta/subscribe\",\"clientId\":\"" + client.clientId()
                + "\",\"subscription\":\"/x\",\"id\":\"abc\"}").get("id"));
        assertEquals(77, one("{\"channel\":\"/x\",\"clientId\":\"" + client.clientId() + "\",\"data\":0,\"id\":77}")
                .get("id"));
    }

    @Test
    void aHandshakeDeniedByPolicyCreatesNoSession() {
        server.setSecurityPolicy(new io.weft.server.api.SecurityPolicy() {
            @Override
            public boolean canHandshake(BayeuxServer s, io.weft.server.api.ServerSession session,
                    io.weft.bayeux.Message handshake) {
                Map<String, Object> ext = handshake.getExt();
                return ext != null && "secret".equals(ext.get("token"));
            }
        });
        int before = server.getSessions().size();
        Map<String, Object> denied = one("{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"ext\":{\"token\":\"x\"}}");
        assertEquals("403::handshake_denied", denied.get("error"));
        assertEquals("none", ((Map<?, ?>) denied.get("advice")).get("reconnect"));
        assertEquals(before, server.getSessions().size());
        Map<String, Object> allowed = one("{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"ext\":{\"token\":\"secret\"}}");
        assertEquals(true, allowed.get("successful"));
    }

    @Test
    void aPolicyThatThrowsIsADenialAndTheServerCarriesOn() {
        server.setSecurityPolicy(new io.weft.server.api.SecurityPolicy() {
            @Override
            public boolean canPublish(BayeuxServer s, io.weft.server.api.ServerSession session,
                    io.weft.bayeux.ChannelId channel, io.weft.bayeux.Message message) {
                throw new IllegalStateException("policy bug");
            }
        });
        assertEquals("403::publish_denied", client.publishJson("/a", "1").get(0).get("error"));
        assertEquals(true, client.subscribe("/a").get("successful"));
    }
}
