package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A full queue applies its policy by itself, without anything else configured. */
class QueueOverflowTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServer server;

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void theOldestMessagesAreDroppedAndCounted() {
        server = BayeuxServer.create(ServerOptions.builder().maxQueue(3).build(), scheduler);
        ScriptedClient slow = ScriptedClient.connected(server, "slow");
        slow.subscribe("/q");
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        for (int i = 0; i < 5; i++) {
            publisher.publishJson("/q", String.valueOf(i));
        }
        assertEquals(2, server.getSession(slow.clientId()).getDroppedMessages());
        List<Object> data = slow.connectNow().stream().filter(m -> m.containsKey("data")).map(m -> m.get("data"))
                .collect(Collectors.toList());
        assertEquals(List.of(2, 3, 4), data);
    }

    @Test
    void underTheDisconnectPolicyASlowConsumerIsDisconnectedWithAReason() {
        server = BayeuxServer.create(ServerOptions.builder().maxQueue(2)
                .queueOverflow(ServerOptions.OverflowPolicy.DISCONNECT).build(), scheduler);
        ScriptedClient slow = ScriptedClient.connected(server, "slow");
        slow.subscribe("/q");
        slow.connectNow();
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        for (int i = 0; i < 3; i++) {
            publisher.publishJson("/q", String.valueOf(i));
        }
        assertNull(server.getSession(slow.clientId()));
        Map<String, Object> told = slow.connectNow().get(0);
        assertEquals("408::queue_full", told.get("error"), "the client, between polls, is told why once");
        assertEquals("none", ((Map<?, ?>) told.get("advice")).get("reconnect"));
        assertEquals("402::session_unknown", slow.connectNow().get(0).get("error"));
        assertEquals(true, publisher.publishJson("/q", "9").get(0).get("successful"), "the publisher is unaffected");
    }

    @Test
    void aHeldConnectOfADisconnectedSlowConsumerIsToldWhy() {
        server = BayeuxServer.create(ServerOptions.builder().maxQueue(1)
                .queueOverflow(ServerOptions.OverflowPolicy.DISCONNECT).build(), scheduler);
        ScriptedClient slow = ScriptedClient.connected(server, "slow");
        slow.subscribe("/q");
        CompletableFuture<String> held = slow.heldConnect();
        ScriptedClient publisher = ScriptedClient.connected(server, "p");
        // Two messages in one batch: the first fills the queue, the second overflows it before the wake.
        publisher.send("[{\"channel\":\"/q\",\"data\":1,\"clientId\":\"" + publisher.clientId() + "\"},"
                + "{\"channel\":\"/q\",\"data\":2,\"clientId\":\"" + publisher.clientId() + "\"}]");
        List<Map<String, Object>> replies = ScriptedClient.await(held);
        Map<String, Object> connectReply = replies.get(replies.size() - 1);
        assertEquals("408::queue_full", connectReply.get("error"));
        assertEquals("none", ((Map<?, ?>) connectReply.get("advice")).get("reconnect"));
    }
}
