package io.weft.server.serverapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Gen;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import io.weft.server.testing.Tries;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * History and recovery tried on generated interleavings (issue 27): publications on two channels, readers that poll,
 * move to a new session recovering from the last position they received (or lose their session to its timeout and do
 * the same), and a clock that trims by age and lets idle streams expire into a new epoch, under rules that trim by
 * count and by bytes and a bound on what one recovery may return. Whatever the order, a reader never receives a
 * publication twice or out of order, and misses one only where the subscription it made said {@code recovered: false}
 * for that channel (or where it gave no position, having received nothing there).
 */
class HistoryPropertiesTest {
    private static final int TRIES = 300;
    private static final List<String> CHANNELS = List.of("/h/a", "/h/b");
    /** What each reader subscribes to: one channel, the other, both through a wildcard. */
    private static final List<String> SUBSCRIPTIONS = List.of("/h/a", "/h/b", "/h/*");

    enum Kind { PUBLISH, POLL, MOVE, TICK, IDLE }

    record Op(Kind kind, int target) {
        @Override
        public String toString() {
            return kind == Kind.TICK || kind == Kind.IDLE ? kind.name() : kind + "(" + target + ")";
        }
    }

    record Scenario(int size, String bytes, int maxRecovered, List<Op> ops) {
    }

    private static Scenario scenario(Gen gen) {
        List<Op> ops = new ArrayList<>();
        int count = 5 + gen.size() * 2;
        for (int i = 0; i < count; i++) {
            int roll = gen.between(0, 99);
            Kind kind = roll < 45 ? Kind.PUBLISH : roll < 70 ? Kind.POLL : roll < 88 ? Kind.MOVE
                    : roll < 96 ? Kind.TICK : Kind.IDLE;
            int target = kind == Kind.PUBLISH ? gen.between(0, CHANNELS.size() - 1)
                    : gen.between(0, SUBSCRIPTIONS.size() - 1);
            ops.add(new Op(kind, target));
        }
        return new Scenario(gen.between(1, 12), gen.pick("1k", "1m"), gen.between(1, 10), ops);
    }

    /** What the tries went through, so that a run that never recovered, refused or expired anything fails. */
    private static final Map<String, Integer> SEEN = new HashMap<>();

    @Test
    void noReaderEverGetsADuplicateOrAGapItWasNotToldOf() {
        SEEN.clear();
        Tries.forAll(TRIES, HistoryPropertiesTest::scenario, HistoryPropertiesTest::check);
        for (String event : List.of("recovered", "not recovered", "gap told of", "session expired", "new epoch")) {
            assertTrue(SEEN.getOrDefault(event, 0) > 0, "no try had a " + event + ": " + SEEN);
        }
    }

    private static void seen(String event) {
        SEEN.merge(event, 1, Integer::sum);
    }

    private static void check(Scenario scenario) {
        ManualScheduler scheduler = new ManualScheduler();
        BayeuxServer server = BayeuxServer.create(ServerOptions.builder()
                .set("history", "/h/**:size=" + scenario.size() + ",ttl=2s,bytes=" + scenario.bytes())
                .maxRecoveredMessages(scenario.maxRecovered()).build(), scheduler);
        try {
            Map<String, Long> published = new HashMap<>();
            List<Reader> readers = new ArrayList<>();
            for (int i = 0; i < SUBSCRIPTIONS.size(); i++) {
                Reader reader = new Reader(server, "r" + i, SUBSCRIPTIONS.get(i));
                reader.join(published);
                readers.add(reader);
            }
            for (Op op : scenario.ops()) {
                switch (op.kind()) {
                    case PUBLISH -> {
                        String channel = CHANNELS.get(op.target());
                        long seq = published.merge(channel, 1L, Long::sum);
                        server.createChannelIfAbsent(channel).publish(null, seq);
                    }
                    case POLL -> readers.get(op.target()).poll(published);
                    case MOVE -> readers.get(op.target()).join(published);
                    case TICK -> scheduler.advance(700);
                    case IDLE -> scheduler.advance(2_500);
                    default -> throw new AssertionError(op);
                }
            }
            for (Reader reader : readers) {
                reader.poll(published);
            }
        } finally {
            server.close();
            scheduler.close();
        }
    }

    /** One client: its current session, the last publication and position it received per channel. */
    private static final class Reader {
        private final BayeuxServer server;
        private final String name;
        private final String subscription;
        private final Map<String, Long> last = new HashMap<>();
        private final Map<String, Map<String, Object>> positions = new HashMap<>();
        /** Channels where the last subscription said it could not recover: the next delivery may skip ahead once. */
        private final Map<String, Boolean> gapAllowed = new HashMap<>();
        private ScriptedClient session;
        private int sessions;

        Reader(BayeuxServer server, String name, String subscription) {
            this.server = server;
            this.name = name;
            this.subscription = subscription;
        }

        /** A new session (the old one, if any, left without a word), subscribing with the positions received. */
        @SuppressWarnings("unchecked")
        void join(Map<String, Long> published) {
            session = ScriptedClient.connected(server, name + "-" + sessions++);
            Map<String, Object> message = session.message("/meta/subscribe", "subscription", subscription);
            Map<String, Object> recover = new LinkedHashMap<>();
            for (String channel : covered()) {
                if (positions.containsKey(channel)) {
                    recover.put(channel, positions.get(channel));
                }
            }
            if (!recover.isEmpty()) {
                message.put("ext", Map.of("recover", recover));
            }
            Map<String, Object> reply = session.call(message);
            assertEquals(true, reply.get("successful"), name + ": " + reply);
            Map<String, Object> answers = reply.get("ext") instanceof Map<?, ?> ext
                    ? (Map<String, Object>) ext.get("recover") : null;
            for (String channel : covered()) {
                if (!recover.containsKey(channel)) {
                    // nothing received there: the reader asked for nothing and starts from what is published now
                    last.put(channel, published.getOrDefault(channel, 0L));
                    continue;
                }
                Map<String, Object> answer = answers == null ? null : (Map<String, Object>) answers.get(channel);
                assertTrue(answer != null && answer.containsKey("recovered"),
                        name + " gave a position for " + channel + " and was not answered: " + reply);
                if (!answer.get("epoch").equals(positions.get(channel).get("epoch"))) {
                    seen("new epoch");
                }
                if (Boolean.FALSE.equals(answer.get("recovered"))) {
                    seen("not recovered");
                    gapAllowed.put(channel, true);
                } else {
                    seen("recovered");
                    gapAllowed.remove(channel); // all since the position given: an earlier refusal's gap is filled
                }
            }
        }

        void poll(Map<String, Long> published) {
            List<Map<String, Object>> answer = session.connectNow();
            boolean lost = answer.stream().anyMatch(m -> "/meta/connect".equals(m.get("channel"))
                    && Boolean.FALSE.equals(m.get("successful")));
            for (Map<String, Object> message : answer) {
                String channel = (String) message.get("channel");
                if (message.containsKey("data") && CHANNELS.contains(channel)) {
                    receive(channel, message);
                }
            }
            if (lost) {
                seen("session expired");
                join(published); // the session timed out while the reader was away: as a client does, start again
            }
        }

        @SuppressWarnings("unchecked")
        private void receive(String channel, Map<String, Object> message) {
            long seq = ((Number) message.get("data")).longValue();
            long before = last.getOrDefault(channel, 0L);
            assertTrue(seq > before, name + " on " + channel + ": " + seq + " after " + before
                    + " (a duplicate or out of order)");
            assertTrue(seq == before + 1 || gapAllowed.getOrDefault(channel, false), name + " on " + channel + ": "
                    + seq + " after " + before + " with no recovered: false said");
            if (seq > before + 1) {
                seen("gap told of");
            }
            gapAllowed.remove(channel);
            last.put(channel, seq);
            positions.put(channel, (Map<String, Object>) ((Map<String, Object>) message.get("ext")).get("history"));
        }

        private List<String> covered() {
            return subscription.endsWith("*") ? CHANNELS : List.of(subscription);
        }
    }
}
