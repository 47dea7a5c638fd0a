package io.weft.server.serverapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.HistoryRule;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Channel history in one node's memory: positions on delivered messages, a subscription that recovers what a
 * client missed (in order, once, before newer ones) or says it could not, and the bounds (docs/protocol.md,
 * "History and recovery").
 */
class HistoryTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServer server;

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
    }

    private ScriptedClient start(String history) {
        return start(ServerOptions.builder().set("history", history).build());
    }

    private ScriptedClient start(ServerOptions options) {
        server = BayeuxServer.create(options, scheduler);
        return ScriptedClient.connected(server, "publisher");
    }

    /** Subscribes, giving {@code positions} (channel, epoch, offset, ...) in ext.recover when there are any. */
    private static Map<String, Object> subscribe(ScriptedClient client, String channel, Object... positions) {
        Map<String, Object> message = client.message("/meta/subscribe", "subscription", channel);
        if (positions.length > 0) {
            Map<String, Object> recover = new LinkedHashMap<>();
            for (int i = 0; i < positions.length; i += 3) {
                recover.put((String) positions[i], Map.of("epoch", positions[i + 1], "offset", positions[i + 2]));
            }
            message.put("ext", Map.of("recover", recover));
        }
        return client.call(message);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> recovered(Map<String, Object> reply, String channel) {
        assertEquals(true, reply.get("successful"), reply.toString());
        return (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) reply.get("ext")).get("recover"))
                .get(channel);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> position(Map<String, Object> delivery) {
        return (Map<String, Object>) ((Map<String, Object>) delivery.get("ext")).get("history");
    }

    /** The data of the deliveries on {@code channel} in one answer, in order. */
    private static List<Object> data(List<Map<String, Object>> answer, String channel) {
        List<Object> out = new ArrayList<>();
        for (Map<String, Object> message : answer) {
            if (channel.equals(message.get("channel")) && message.containsKey("data")) {
                Object data = message.get("data");
                out.add(data instanceof Number number ? (Object) number.longValue() : data);
            }
        }
        return out;
    }

    private static long offset(Map<String, Object> position) {
        return ((Number) position.get("offset")).longValue();
    }

    @Test
    void publicationsCarryContiguousOffsetsInTheEpochTheSubscriptionWasGiven() {
        ScriptedClient publisher = start("/chat/**:size=100");
        ScriptedClient reader = ScriptedClient.connected(server, "reader");
        Map<String, Object> at = recovered(subscribe(reader, "/chat/a"), "/chat/a");
        assertEquals(0L, offset(at), "before the first publication");
        assertFalse(at.containsKey("recovered"), "nothing asked, nothing said");
        for (int i = 1; i <= 3; i++) {
            assertEquals(true, publisher.publish("/chat/a", i).get("successful"));
        }
        List<Map<String, Object>> answer = reader.connectNow();
        List<Long> offsets = new ArrayList<>();
        for (Map<String, Object> message : answer) {
            if ("/chat/a".equals(message.get("channel"))) {
                assertEquals(at.get("epoch"), position(message).get("epoch"));
                offsets.add(offset(position(message)));
            }
        }
        assertEquals(List.of(1L, 2L, 3L), offsets);
        publisher.publish("/other", 1);
        reader.subscribe("/other");
        publisher.publish("/other", 2);
        Map<String, Object> plain = reader.connectNow().stream().filter(m -> "/other".equals(m.get("channel"))
                && m.containsKey("data")).findFirst().orElseThrow();
        assertNull(plain.get("ext"), "a channel without history carries no position");
    }

    @Test
    void aNewSessionRecoversWhatTheOldOneMissedInOrderOnceBeforeNewerOnes() {
        ScriptedClient publisher = start("/chat/**");
        ScriptedClient before = ScriptedClient.connected(server, "b1");
        Map<String, Object> at = recovered(subscribe(before, "/chat/a"), "/chat/a");
        publisher.publish("/chat/a", 1);
        publisher.publish("/chat/a", 2);
        assertEquals(List.of(1L, 2L), data(before.connectNow(), "/chat/a"));
        before.disconnect();
        for (int i = 3; i <= 5; i++) {
            publisher.publish("/chat/a", i);
        }
        ScriptedClient after = ScriptedClient.connected(server, "b2");
        Map<String, Object> result = recovered(subscribe(after, "/chat/a", "/chat/a", at.get("epoch"), 2), "/chat/a");
        assertEquals(true, result.get("recovered"));
        assertEquals(5L, offset(result));
        publisher.publish("/chat/a", 6);
        assertEquals(List.of(3L, 4L, 5L, 6L), data(after.connectNow(), "/chat/a"));
        assertEquals(1L, server.getStats().history().recovered());
        assertEquals(3L, server.getStats().history().messagesRecovered());
    }

    @Test
    void aPositionTooOldAnotherEpochOrTooManyMissedIsNotRecoveredAndNothingOfTheGapIsDelivered() {
        ScriptedClient publisher = start(ServerOptions.builder().set("history", "/chat/**:size=3")
                .maxRecoveredMessages(2).build());
        ScriptedClient first = ScriptedClient.connected(server, "first");
        String epoch = (String) recovered(subscribe(first, "/chat/a"), "/chat/a").get("epoch");
        for (int i = 1; i <= 10; i++) {
            publisher.publish("/chat/a", i);
        }
        ScriptedClient trimmed = ScriptedClient.connected(server, "trimmed");
        Map<String, Object> old = recovered(subscribe(trimmed, "/chat/a", "/chat/a", epoch, 2), "/chat/a");
        assertEquals(false, old.get("recovered"), "8 missed: more than can be recovered, and 5 of them trimmed");
        assertEquals(10L, offset(old), "live delivery goes on from here");
        ScriptedClient tooMany = ScriptedClient.connected(server, "many");
        assertEquals(false, recovered(subscribe(tooMany, "/chat/a", "/chat/a", epoch, 7), "/chat/a").get("recovered"),
                "3 missed, 2 recoverable at most");
        ScriptedClient otherEpoch = ScriptedClient.connected(server, "epoch");
        assertEquals(false, recovered(subscribe(otherEpoch, "/chat/a", "/chat/a", "elsewhere", 9), "/chat/a")
                .get("recovered"));
        ScriptedClient recent = ScriptedClient.connected(server, "recent");
        assertEquals(true, recovered(subscribe(recent, "/chat/a", "/chat/a", epoch, 8), "/chat/a").get("recovered"));
        publisher.publish("/chat/a", 11);
        for (ScriptedClient late : List.of(trimmed, tooMany, otherEpoch)) {
            assertEquals(List.of(11L), data(late.connectNow(), "/chat/a"), "the gap is not delivered");
        }
        assertEquals(List.of(9L, 10L, 11L), data(recent.connectNow(), "/chat/a"));
        assertEquals(3L, server.getStats().history().notRecovered());
    }

    @Test
    void aRecoveredPublicationIsTheDataPublishedAndOneItCannotGiveBackIsNotRecovered() {
        ScriptedClient publisher = start("/chat/**");
        ScriptedClient before = ScriptedClient.connected(server, "before");
        String epoch = (String) recovered(subscribe(before, "/chat/a"), "/chat/a").get("epoch");
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("user", "ada");
        line.put("text", "caf\u00e9 \ud83d\ude00 \"quoted\"");
        line.put("at", List.of(1.5, 2L, true));
        line.put("nested", Map.of("k", Map.of("v", "w")));
        publisher.publish("/chat/a", line);
        ScriptedClient after = ScriptedClient.connected(server, "after");
        assertEquals(true, recovered(subscribe(after, "/chat/a", "/chat/a", epoch, 0), "/chat/a").get("recovered"));
        List<Object> live = data(before.connectNow(), "/chat/a");
        assertEquals(1, live.size());
        assertEquals(line.toString(), live.get(0).toString());
        assertEquals(live, data(after.connectNow(), "/chat/a"), "kept as JSON, given back as it was delivered live");

        // Server code may publish data nested deeper than JSON is read back (200 levels): the history cannot give
        // that publication back, and says so rather than leave a gap.
        Object deep = "bottom";
        for (int i = 0; i < 250; i++) {
            deep = List.of(deep);
        }
        server.createChannelIfAbsent("/chat/b").publish(null, deep);
        ScriptedClient deepReader = ScriptedClient.connected(server, "deep");
        Map<String, Object> result = recovered(subscribe(deepReader, "/chat/b", "/chat/b", epochOf("/chat/b"), 0),
                "/chat/b");
        assertEquals(false, result.get("recovered"));
        assertEquals(1L, offset(result), "live delivery goes on after it");
    }

    /** A channel's epoch, as a subscription without a position is told it. */
    private String epochOf(String channel) {
        ScriptedClient asker = ScriptedClient.connected(server, "asker-" + channel);
        return (String) recovered(subscribe(asker, channel), channel).get("epoch");
    }

    @Test
    void aWildcardSubscriptionRecoversEachChannelItGivesAPositionFor() {
        ScriptedClient publisher = start("/chat/**");
        ScriptedClient first = ScriptedClient.connected(server, "first");
        String a = (String) recovered(subscribe(first, "/chat/a"), "/chat/a").get("epoch");
        String b = (String) recovered(subscribe(first, "/chat/b"), "/chat/b").get("epoch");
        publisher.publish("/chat/a", 1);
        publisher.publish("/chat/b", 2);
        publisher.publish("/chat/a", 3);
        ScriptedClient again = ScriptedClient.connected(server, "again");
        Map<String, Object> reply = subscribe(again, "/chat/*", "/chat/a", a, 1, "/chat/b", b, 0, "/elsewhere", a, 0);
        assertEquals(true, recovered(reply, "/chat/a").get("recovered"));
        assertEquals(true, recovered(reply, "/chat/b").get("recovered"));
        assertNull(recovered(reply, "/elsewhere"), "not under the subscription: ignored");
        List<Map<String, Object>> answer = again.connectNow();
        assertEquals(List.of(3L), data(answer, "/chat/a"));
        assertEquals(List.of(2L), data(answer, "/chat/b"));
    }

    @Test
    void concurrentPublishesNeverLeaveAGapOrADuplicateAtTheBoundary() throws Exception {
        ScriptedClient publisher = start(ServerOptions.builder().set("history", "/chat/**:size=100000,bytes=16m")
                .maxQueue(50_000).maxQueueBytes(8 << 20).maxRecoveredMessages(100_000).build());
        // (the position each client gives trails the writer by 50 when it is read, by more when the subscription
        // arrives: more than the default 1,000 on a busy machine, which is then rightly not recovered)
        ServerChannel channel = server.createChannelIfAbsent("/chat/live");
        var local = server.newLocalSession("writer");
        local.handshake();
        ScriptedClient first = ScriptedClient.connected(server, "first");
        String epoch = (String) recovered(subscribe(first, "/chat/live"), "/chat/live").get("epoch");
        int total = 10_000;
        Thread writer = new Thread(() -> {
            for (int i = 1; i <= total; i++) {
                channel.publish(local.getServerSession(), i);
            }
        });
        writer.start();
        List<ScriptedClient> clients = new ArrayList<>();
        List<Long> from = new ArrayList<>();
        int duringWrites = 0;
        for (int k = 0; k < 20; k++) {
            duringWrites += writer.isAlive() ? 1 : 0;
            ScriptedClient client = ScriptedClient.connected(server, "c" + k);
            long position = Math.max(0, server.getStats().history().messages() - 50);
            Map<String, Object> result = recovered(subscribe(client, "/chat/live", "/chat/live", epoch, position),
                    "/chat/live");
            assertEquals(true, result.get("recovered"), result.toString());
            clients.add(client);
            from.add(position);
        }
        writer.join(30_000);
        assertFalse(writer.isAlive());
        assertTrue(duringWrites >= 5, "subscriptions while publishing: " + duringWrites);
        for (int k = 0; k < clients.size(); k++) {
            List<Long> got = new ArrayList<>();
            while (got.isEmpty() || got.get(got.size() - 1) < total) {
                List<Long> more = new ArrayList<>();
                for (Object value : data(clients.get(k).connectNow(), "/chat/live")) {
                    more.add(((Number) value).longValue());
                }
                got.addAll(more);
                if (more.isEmpty()) {
                    break;
                }
            }
            List<Long> expected = new ArrayList<>();
            for (long i = from.get(k) + 1; i <= total; i++) {
                expected.add(i);
            }
            assertEquals(expected, got, "client " + k + ": every publication after its position, once, in order");
        }
        publisher.close();
    }

    @Test
    void anIdleChannelsHistoryExpiresAndComesBackInANewEpoch() {
        ScriptedClient publisher = start("/chat/**:ttl=60s");
        ScriptedClient reader = ScriptedClient.connected(server, "reader");
        String epoch = (String) recovered(subscribe(reader, "/chat/a"), "/chat/a").get("epoch");
        publisher.publish("/chat/a", 1);
        assertEquals(1, server.getStats().history().channels());
        scheduler.advance(61_000);
        assertEquals(0, server.getStats().history().channels(), "swept");
        assertEquals(0L, server.getStats().history().messages());
        ScriptedClient later = ScriptedClient.connected(server, "later");
        Map<String, Object> result = recovered(subscribe(later, "/chat/a", "/chat/a", epoch, 1), "/chat/a");
        assertEquals(false, result.get("recovered"));
        assertNotEquals(epoch, result.get("epoch"));
    }

    @Test
    void historiesAreBoundedPerAddressAndInAllAndPositionsPerSubscription() throws Exception {
        server = BayeuxServer.create(ServerOptions.builder().set("history", "/h/**").maxHistoryChannels(5)
                .maxHistoryChannelsPerAddress(3).maxRecoverChannels(2).build(), scheduler);
        ScriptedClient one = new ScriptedClient(InMemoryTransport.polling(server)
                .from(InetAddress.getByName("10.0.0.1")), "one");
        one.handshake();
        ScriptedClient two = new ScriptedClient(InMemoryTransport.polling(server)
                .from(InetAddress.getByName("10.0.0.2")), "two");
        two.handshake();
        for (int i = 0; i < 3; i++) {
            assertEquals(true, one.publish("/h/" + i, i).get("successful"));
        }
        Map<String, Object> refused = one.publish("/h/3", 3);
        assertEquals("429:maxHistoryChannelsPerAddress:limit_exceeded", refused.get("error"));
        assertEquals(true, two.publish("/h/4", 4).get("successful"), "another address has its share");
        assertEquals(true, two.publish("/h/5", 5).get("successful"));
        assertEquals("429:maxHistoryChannels:limit_exceeded", two.publish("/h/6", 6).get("error"));
        assertEquals(true, two.publish("/other", 6).get("successful"), "channels without history are not bounded so");
        assertEquals(1L, server.getRefusals().get(Limit.HISTORY_CHANNELS));
        Map<String, Object> tooMany = subscribe(two, "/h/*", "/h/0", "e", 0, "/h/1", "e", 0, "/h/2", "e", 0);
        assertEquals("429:maxRecoverChannels:limit_exceeded", tooMany.get("error"));
    }

    @Test
    void anApplicationGivesOneChannelAHistory() {
        ScriptedClient publisher = start(ServerOptions.defaults());
        ServerChannel channel = server.createChannelIfAbsent("/news", c -> c.setPersistent(true));
        assertNull(channel.getHistory());
        channel.setHistory(HistoryRule.parse("/news:size=2"));
        ScriptedClient reader = ScriptedClient.connected(server, "reader");
        String epoch = (String) recovered(subscribe(reader, "/news"), "/news").get("epoch");
        publisher.publish("/news", 1);
        publisher.publish("/news", 2);
        ScriptedClient again = ScriptedClient.connected(server, "again");
        assertEquals(true, recovered(subscribe(again, "/news", "/news", epoch, 0), "/news").get("recovered"));
        assertEquals(List.of(1L, 2L), data(again.connectNow(), "/news"));
    }

    @Test
    void rulesAreParsedWithTheirDefaultsAndBadOnesNamed() {
        HistoryRule rule = HistoryRule.parse(" /chat/** : size=10, ttl=2m, bytes=64k ");
        assertEquals(10, rule.size());
        assertEquals(120_000L, rule.ttlMillis());
        assertEquals(65_536, rule.maxBytes());
        assertEquals(HistoryRule.DEFAULT_SIZE, HistoryRule.parse("/a").size());
        for (String bad : List.of("chat", "/meta/x", "/a:size=0", "/a:ttl=1ms", "/a:colour=red", "/a:size=ten")) {
            IllegalArgumentException x = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class, () -> ServerOptions.builder().set("history", bad).build());
            assertTrue(x.getMessage().contains("history"), x.getMessage());
        }
        assertEquals(2, ServerOptions.builder().set("history", "/a/**;/b:size=5").build().history().size());
    }
}
