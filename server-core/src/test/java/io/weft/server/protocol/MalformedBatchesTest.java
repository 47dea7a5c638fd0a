package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.ext.AcknowledgedMessagesExtension;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.Gen;
import io.weft.server.testing.Json;
import io.weft.server.testing.JsonGen;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import io.weft.server.testing.SocketClient;
import io.weft.server.testing.Tries;
import io.weft.server.testing.WrongTypes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Batches that are valid JSON but of any shape, through a whole server: each is answered in time with a JSON array in
 * which every message of the batch has its reply, successful or carrying a {@code code:args:message} error (never a
 * server error), deliveries carry no reply fields, and a well-behaved client is served afterwards as if nothing had
 * happened.
 */
class MalformedBatchesTest {
    private static final int TRIES = 300;
    private static final long TIMEOUT = ServerOptions.defaults().timeout();
    /** {@code code:args:message}: the code is three digits, the message has no colon; args may hold anything. */
    private static final Pattern ERROR = Pattern.compile("([1-9][0-9]{2}):(.*):([a-z_]+)", Pattern.DOTALL);
    /** Fields that belong to replies, advice or the publisher, and never to a delivered message (DESIGN.md, Bounds). */
    private static final Set<String> NOT_IN_DELIVERIES = Set.of(Message.SUCCESSFUL, Message.ERROR, Message.ADVICE,
            Message.CLIENT_ID, Message.SUBSCRIPTION, Message.SUPPORTED_CONNECTION_TYPES, Message.CONNECTION_TYPE,
            Message.VERSION, Message.MINIMUM_VERSION);
    private static final String[] CHANNELS = {"/meta/handshake", "/meta/connect", "/meta/connect", "/meta/subscribe",
        "/meta/unsubscribe", "/meta/disconnect", "/meta/other", "/a", "/a", "/a/b", "/a/*", "/a/**", "/service/x",
        "bad", "", "/a//b", "/*"};
    private static final String[] BROWSERS = {"b1", "b1", "b2", null};

    /** One try: whether the ack extension is on, and the batches sent one after the other. */
    record Script(boolean acks, List<Batch> batches) {
        @Override
        public String toString() {
            return (acks ? "with acks, " : "") + batches;
        }
    }

    record Batch(String browser, List<Object> messages, String text) {
        @Override
        public String toString() {
            return "\n    from " + browser + ": " + Tries.literal(text);
        }
    }

    @Test
    void everyBatchOverLongPollingIsAnsweredAndTheServerCarriesOn() {
        Tries.forAll(TRIES, MalformedBatchesTest::script, script -> {
            Fixture fixture = new Fixture(script.acks());
            try (fixture) {
                InMemoryTransport polling = InMemoryTransport.polling(fixture.server);
                for (Batch batch : script.batches()) {
                    CompletableFuture<String> response = polling.request(batch.browser(), fixture.withClientId(batch));
                    if (!response.isDone()) {
                        fixture.scheduler.advance(TIMEOUT);
                    }
                    String body = response.get(1, TimeUnit.SECONDS);
                    assertAnswered(batch, new ArrayList<>(Json.array(body)));
                }
                fixture.drainB1();
                fixture.assertStillServes();
            }
        });
    }

    @Test
    void everyFrameOverWebSocketIsAnsweredAndTheServerCarriesOn() {
        Tries.forAll(TRIES, MalformedBatchesTest::script, script -> {
            Fixture fixture = new Fixture(script.acks());
            try (fixture) {
                InMemoryTransport websocket = InMemoryTransport.websocket(fixture.server);
                InMemoryTransport.Socket socket = websocket.open(script.batches().get(0).browser());
                for (Batch batch : script.batches()) {
                    socket.send(fixture.withClientId(batch));
                    fixture.scheduler.advance(TIMEOUT);
                    List<Map<String, Object>> written = new ArrayList<>();
                    String frame;
                    while ((frame = socket.frames().poll()) != null) {
                        written.addAll(Json.array(frame));
                    }
                    assertAnswered(batch, written);
                }
                socket.close();
                fixture.drainB1();
                fixture.assertStillServes();
            }
        });
    }

    @Test
    void aWellKnownFieldOfTheWrongTypeIsAnsweredWithAnErrorReply() {
        Tries.forAll(TRIES, gen -> {
            JsonGen json = new JsonGen(gen);
            Map<String, Object> message = new LinkedHashMap<>();
            message.put(Message.CHANNEL, gen.pick(CHANNELS));
            message.put(Message.CLIENT_ID, Fixture.CLIENT_ID);
            message.put(Message.ID, "q1");
            message.put(Message.DATA, json.value(2));
            String field = gen.pick(WrongTypes.FIELDS);
            message.put(field, WrongTypes.valueFor(field, gen, json));
            return new Mistyped(field, new Batch(gen.pick(BROWSERS), List.of(message), json.render(List.of(message))));
        }, mistyped -> {
            Fixture fixture = new Fixture(false);
            try (fixture) {
                Batch batch = mistyped.batch();
                List<Map<String, Object>> replies = ScriptedClient.of(fixture.server, batch.browser())
                        .send(fixture.withClientId(batch));
                assertEquals(1, replies.size(), replies.toString());
                assertEquals(false, replies.get(0).get(Message.SUCCESSFUL));
                assertEquals(WrongTypes.errorFor(mistyped.field()).toString(), replies.get(0).get(Message.ERROR));
                fixture.assertStillServes();
            }
        });
    }

    record Mistyped(String field, Batch batch) {
    }

    /** The shortest case of what the batches above find: a publisher's reply fields and advice reach subscribers. */
    @Test
    void aPublishersReplyFieldsAndAdviceAreNotDelivered() {
        Fixture fixture = new Fixture(false);
        try (fixture) {
            ScriptedClient publisher = ScriptedClient.connected(fixture.server, "publisher");
            publisher.send("[{\"channel\":\"/a\",\"clientId\":\"" + publisher.clientId() + "\",\"id\":\"7\","
                    + "\"data\":1,\"successful\":false,\"error\":\"402::session_unknown\","
                    + "\"advice\":{\"reconnect\":\"none\"}}]");
            List<Map<String, Object>> written = ScriptedClient.of(fixture.server, "b1").send("[{\"channel\":"
                    + "\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + fixture.clientId
                    + "\",\"advice\":{\"timeout\":0}}]");
            Map<String, Object> delivery = written.get(0);
            assertEquals(1, delivery.get(Message.DATA), written.toString());
            for (String field : NOT_IN_DELIVERIES) {
                assertFalse(delivery.containsKey(field), "a delivery carries the publisher's '" + field + "': " + delivery);
            }
        }
    }

    // ---- what an answer must be ----

    /**
     * Each message of the batch has exactly one reply (its channel and id echoed when they were well typed), successful
     * or with a well-formed client error; everything else written is a delivery, on a broadcast channel and without
     * reply fields.
     */
    private static void assertAnswered(Batch batch, List<Map<String, Object>> written) {
        List<List<Object>> awaited = new ArrayList<>();
        for (Object message : batch.messages()) {
            awaited.add(echo(message));
        }
        List<Map<String, Object>> deliveries = new ArrayList<>();
        for (Map<String, Object> message : written) {
            if (message.containsKey(Message.SUCCESSFUL) && awaited.remove(echo(message))) {
                assertReply(message);
            } else {
                deliveries.add(message);
            }
        }
        assertTrue(awaited.isEmpty(), "no reply to messages " + awaited + " in " + written);
        for (Map<String, Object> delivery : deliveries) {
            ChannelId channel = ChannelId.isValid(String.valueOf(delivery.get(Message.CHANNEL)))
                    ? ChannelId.of((String) delivery.get(Message.CHANNEL)) : null;
            assertTrue(channel != null && channel.isBroadcast(), "a delivery on a broadcast channel: " + delivery);
            for (String field : NOT_IN_DELIVERIES) {
                assertFalse(delivery.containsKey(field), "a delivery carries the publisher's '" + field + "': " + delivery);
            }
        }
    }

    /** What a reply echoes of its request: the channel if it was a string, the id if it was a string or a number. */
    private static List<Object> echo(Object message) {
        if (!(message instanceof Map<?, ?> fields)) {
            return List.of("", "");
        }
        Object channel = fields.get(Message.CHANNEL);
        Object id = fields.get(Message.ID);
        return List.of(channel instanceof String ? channel : "",
                id instanceof String || id instanceof Number ? id : "");
    }

    private static void assertReply(Map<String, Object> reply) {
        Object successful = reply.get(Message.SUCCESSFUL);
        if (Boolean.TRUE.equals(successful)) {
            assertFalse(reply.containsKey(Message.ERROR), "a successful reply with an error: " + reply);
            return;
        }
        assertEquals(Boolean.FALSE, successful, "successful is a boolean: " + reply);
        Object error = reply.get(Message.ERROR);
        assertTrue(error instanceof String, "a failed reply names its error: " + reply);
        Matcher parts = ERROR.matcher((String) error);
        assertTrue(parts.matches(), "error of the form code:args:message: " + Tries.literal((String) error));
        assertTrue(parts.group(1).startsWith("4"), "a client error, not a server error: " + reply);
    }

    // ---- the batches ----

    private static Script script(Gen gen) {
        JsonGen json = new JsonGen(gen);
        int count = gen.between(1, 4);
        List<Batch> batches = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int size = gen.between(1, 4);
            List<Object> messages = new ArrayList<>();
            for (int m = 0; m < size; m++) {
                messages.add(gen.chance(0.1) ? json.value(2) : message(gen, json));
            }
            batches.add(new Batch(gen.pick(BROWSERS), messages, json.render(messages)));
        }
        return new Script(gen.chance(0.5), batches);
    }

    /** A message of one of the shapes clients send, its fields sometimes missing, odd or of the wrong type. */
    private static Map<String, Object> message(Gen gen, JsonGen json) {
        Map<String, Object> message = new LinkedHashMap<>();
        String channel = gen.pick(CHANNELS);
        if (gen.chance(0.9)) {
            message.put(Message.CHANNEL, gen.chance(0.9) ? channel : json.value(1));
        }
        if (gen.chance(0.9)) {
            message.put(Message.CLIENT_ID, gen.chance(0.7) ? Fixture.CLIENT_ID : json.value(1));
        }
        if (gen.chance(0.8)) {
            message.put(Message.ID, gen.chance(0.8) ? "q" + gen.between(0, 9) : json.value(1));
        }
        switch (channel) {
            case "/meta/handshake" -> {
                message.put(Message.VERSION, gen.chance(0.8) ? "1.0" : json.value(1));
                message.put(Message.SUPPORTED_CONNECTION_TYPES, gen.chance(0.8)
                        ? List.of(gen.pick("long-polling", "websocket", "x")) : json.value(1));
                if (gen.chance(0.5)) {
                    message.put(Message.EXT, field("ack", gen.chance(0.7) ? true : json.value(1)));
                }
            }
            case "/meta/connect" -> {
                message.put(Message.CONNECTION_TYPE, gen.pick("long-polling", "websocket", "callback-polling", "x"));
                if (gen.chance(0.5)) {
                    message.put(Message.ADVICE, field("timeout", gen.chance(0.7) ? gen.pick(0, 1000, -5) : json.value(1)));
                }
                if (gen.chance(0.5)) {
                    message.put(Message.EXT, field("ack", gen.chance(0.7) ? gen.between(-1, 5) : json.value(1)));
                }
            }
            case "/meta/subscribe", "/meta/unsubscribe" -> {
                if (gen.chance(0.9)) {
                    message.put(Message.SUBSCRIPTION, switch (gen.between(0, 3)) {
                        case 0 -> gen.pick(CHANNELS);
                        case 1 -> List.of(gen.pick(CHANNELS), gen.pick(CHANNELS));
                        case 2 -> List.of();
                        default -> json.value(1);
                    });
                }
            }
            default -> {
                if (gen.chance(0.9)) {
                    message.put(Message.DATA, json.value(3));
                }
                if (gen.chance(0.3)) {
                    message.put(gen.pick(List.copyOf(NOT_IN_DELIVERIES)), json.value(1));
                }
            }
        }
        int others = gen.length(2);
        for (int i = 0; i < others; i++) {
            message.put(json.name(), json.value(2));
        }
        return message;
    }

    /** An object of one field, whose value may be null. */
    private static Map<String, Object> field(String name, Object value) {
        Map<String, Object> object = new LinkedHashMap<>();
        object.put(name, value);
        return object;
    }

    // ---- the server ----

    /** A server on a manual clock, with one session of browser b1 whose clientId the batches use. */
    private static final class Fixture implements AutoCloseable {
        /** Stands for the clientId of b1's session in generated batches. */
        static final String CLIENT_ID = "<b1's clientId>";

        final ManualScheduler scheduler = new ManualScheduler();
        final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);
        final String clientId;

        Fixture(boolean acks) {
            if (acks) {
                server.addExtension(new AcknowledgedMessagesExtension());
            }
            ScriptedClient b1 = ScriptedClient.connected(server, "b1");
            b1.subscribe("/a");
            b1.subscribe("/a/*");
            clientId = b1.clientId();
        }

        /** b1 takes what is queued for it (if its session still lives): the deliveries are checked like any other. */
        void drainB1() {
            Map<String, Object> connect = new LinkedHashMap<>();
            connect.put(Message.CHANNEL, "/meta/connect");
            connect.put(Message.CLIENT_ID, clientId);
            connect.put(Message.CONNECTION_TYPE, "long-polling");
            connect.put(Message.ADVICE, field("timeout", 0));
            Batch batch = new Batch("b1", List.of(connect), Json.write(List.of(connect)));
            assertAnswered(batch, ScriptedClient.of(server, "b1").send(batch.text()));
        }

        String withClientId(Batch batch) {
            return batch.text().replace(Json.write(CLIENT_ID), Json.write(clientId));
        }

        /** A new client handshakes, subscribes and receives what another publishes, over long-polling and websocket. */
        void assertStillServes() {
            ScriptedClient publisher = ScriptedClient.connected(server, "good-publisher");
            ScriptedClient polling = ScriptedClient.connected(server, "good-polling");
            assertEquals(true, polling.subscribe("/good").get(Message.SUCCESSFUL));
            SocketClient socket = new SocketClient(InMemoryTransport.websocket(server), "good-socket");
            assertNotNull(socket.handshake().get(Message.CLIENT_ID));
            socket.connectNow();
            socket.subscribe("/good");
            socket.drain();
            assertEquals(true, publisher.publishJson("/good", "\"still here\"").get(0).get(Message.SUCCESSFUL));
            List<Object> received = new ArrayList<>();
            for (Map<String, Object> message : polling.connectNow()) {
                if ("/good".equals(message.get(Message.CHANNEL))) {
                    received.add(message.get(Message.DATA));
                }
            }
            assertEquals(List.of("still here"), received, "long-polling");
            List<Object> pushed = socket.drain().stream().filter(m -> "/good".equals(m.get(Message.CHANNEL)))
                    .map(m -> m.get(Message.DATA)).filter(Objects::nonNull).toList();
            assertEquals(List.of("still here"), pushed, "websocket");
        }

        @Override
        public void close() {
            server.close();
        }
    }
}
