package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.ext.AcknowledgedMessagesExtension;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Numbers a client sends past the range of {@code long} are read as the nearest {@code long}, not as their low 64 bits:
 * a connect asking to be held "longer than anything" is held for the session's timeout, not for 5 ms or not at all,
 * and an acknowledgement of "every batch and more" does not become an acknowledgement of batch 1.
 */
class NumbersPastLongTest {
    private static final long TIMEOUT = 20_000;

    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    private static String connect(String clientId, String fields) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + clientId
                + "\"," + fields + "}]";
    }

    /** 2^64 + 5 (whose low bits are 5), and 1e999999999 (a decimal whose low bits are 0). */
    @ParameterizedTest
    @ValueSource(strings = {"18446744073709551621", "1e999999999", "1.8446744073709551621e19"})
    void aConnectAskingForATimeoutPastLongIsHeldForTheSessionsTimeout(String timeout) {
        ScriptedClient client = ScriptedClient.connected(server, "b");
        CompletableFuture<String> held = client.sendAsync(connect(client.clientId(),
                "\"advice\":{\"timeout\":" + timeout + "}"));
        scheduler.advance(5);
        assertFalse(held.isDone(), "held, not answered at once or after 5 ms");
        scheduler.advance(TIMEOUT - 5);
        assertEquals(true, ScriptedClient.await(held).get(0).get("successful"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"-18446744073709551621", "-1e999999999"})
    void aConnectAskingForATimeoutBelowLongIsAnsweredAtOnce(String timeout) {
        ScriptedClient client = ScriptedClient.connected(server, "b");
        CompletableFuture<String> held = client.sendAsync(connect(client.clientId(),
                "\"advice\":{\"timeout\":" + timeout + "}"));
        assertTrue(held.isDone(), "a negative timeout is 0");
    }

    @Test
    void anAcknowledgementPastLongAcknowledgesEverythingSentAndNothingIsSentAgain() {
        server.addExtension(new AcknowledgedMessagesExtension());
        ScriptedClient publisher = ScriptedClient.of(server, "publisher");
        publisher.handshake();
        ScriptedClient client = ScriptedClient.of(server, "b");
        client.resume((String) client.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"ext\":{\"ack\":true}}]").get(0).get("clientId"));
        client.subscribe("/x");
        String now = "\"advice\":{\"timeout\":0},";
        client.send(connect(client.clientId(), now + "\"ext\":{\"ack\":0}"));
        publisher.publishJson("/x", "1");
        client.send(connect(client.clientId(), now + "\"ext\":{\"ack\":1}"));
        publisher.publishJson("/x", "2");
        client.send(connect(client.clientId(), now + "\"ext\":{\"ack\":2}"));

        // Batch 3 carried 2; the client says it has everything up to 2^64 + 1, whose low bits are batch 1.
        List<Map<String, Object>> reply = client.send(connect(client.clientId(),
                now + "\"ext\":{\"ack\":18446744073709551617}"));
        assertEquals(List.of("/meta/connect"), reply.stream().map(message -> message.get("channel")).toList(),
                "nothing is sent again: " + reply);
        assertEquals(0, server.getStats().messagesResent());
    }
}
