package io.weft.server.serverapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.ext.TimestampExtension;
import io.weft.server.ext.TimesyncExtension;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ShippedExtensionsTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void timesyncAnswersWithArrivalAndProcessingTime() {
        AtomicLong clock = new AtomicLong(1_000_000);
        server.addExtension(new TimesyncExtension(clock::get));
        ScriptedClient client = ScriptedClient.of(server, "a");
        Map<String, Object> handshake = client.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"ext\":{\"timesync\":{\"tc\":999900,\"l\":0,\"o\":0}}}]").get(0);
        assertEquals(Map.of("timesync", Map.of("tc", 999900, "ts", 1000000, "p", 0, "a", -100)), handshake.get("ext"));
        client.resume((String) handshake.get("clientId"));
        client.connectNow();

        CompletableFuture<String> held = client.sendAsync("[{\"channel\":\"/meta/connect\",\"clientId\":\""
                + client.clientId() + "\",\"connectionType\":\"long-polling\","
                + "\"ext\":{\"timesync\":{\"tc\":1000010,\"l\":50,\"o\":40}}}]");
        clock.addAndGet(20_000);
        scheduler.advance(20_000);
        Map<?, ?> sync = (Map<?, ?>) ((Map<?, ?>) ScriptedClient.await(held).get(0).get("ext")).get("timesync");
        assertEquals(1000010, sync.get("tc"));
        assertEquals(1000000, sync.get("ts"));
        assertEquals(20000, sync.get("p"), "the hold is processing time, not network lag");
        assertEquals(1000010 + 40 + 50 - 1000000, sync.get("a"));
    }

    @Test
    void timesyncLeavesOtherClientsAlone() {
        server.addExtension(new TimesyncExtension());
        ScriptedClient client = ScriptedClient.of(server, "a");
        assertFalse(client.handshake().containsKey("ext"));
    }

    @Test
    void timestampStampsRepliesAndBroadcastsOnce() {
        server.addExtension(new TimestampExtension(() -> Instant.parse("2026-11-22T13:05:00Z")));
        ScriptedClient reader = ScriptedClient.of(server, "r");
        assertEquals("Sun, 22 Nov 2026 13:05:00 GMT", reader.handshake().get("timestamp"));
        reader.subscribe("/x");
        ScriptedClient writer = ScriptedClient.of(server, "w");
        writer.handshake();
        writer.publishJson("/x", "1");
        List<Map<String, Object>> replies = reader.connectNow();
        assertEquals("Sun, 22 Nov 2026 13:05:00 GMT", replies.get(0).get("timestamp"));
        assertEquals(1, replies.get(0).get("data"));
    }
}
