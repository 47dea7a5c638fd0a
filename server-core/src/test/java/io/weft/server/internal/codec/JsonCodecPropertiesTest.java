package io.weft.server.internal.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.Message;
import io.weft.bayeux.MessageDecodeException;
import io.weft.bayeux.internal.JsonCodec;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.Limit;
import io.weft.server.internal.util.Refusals;
import io.weft.server.testing.Gen;
import io.weft.server.testing.JsonGen;
import io.weft.server.testing.Tries;
import io.weft.server.testing.WrongTypes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The server's codec on generated input: whatever bytes or text arrive, decoding returns messages or refuses with a
 * {@link MessageDecodeException}, never anything else; valid batches survive a decode-encode-decode round trip; the
 * depth and batch-size limits refuse exactly what is past them, and count it once.
 */
class JsonCodecPropertiesTest {
    private static final int TRIES = 500;
    private static final String JSON_CHARS = "[]{}\":,\\ 0123456789.eE+-truefalsnl/u";

    // ---- anything in: messages or a refusal out ----

    @Test
    void arbitraryBytesDecodeToMessagesOrARefusalAndNothingElse() {
        Tries.forAll(TRIES, JsonCodecPropertiesTest::anyBytes, input -> {
            Codec codec = new Codec(6, 4);
            byte[] padded = pad(input.bytes(), input.offset());
            codec.decodes(() -> codec.json.decode(padded, input.offset(), input.bytes().length));
        });
    }

    @Test
    void arbitraryTextDecodesToMessagesOrARefusalAndNothingElse() {
        Tries.forAll(TRIES, JsonCodecPropertiesTest::anyText, text -> {
            Codec codec = new Codec(6, 4);
            codec.decodes(() -> codec.json.decode(text));
        });
    }

    // ---- valid batches ----

    @Test
    void aValidBatchSurvivesDecodingEncodingAndDecodingAgain() {
        Tries.forAll(TRIES, gen -> {
            JsonGen json = new JsonGen(gen);
            List<Map<String, Object>> batch = new ArrayList<>();
            int size = gen.between(1, 5);
            for (int i = 0; i < size; i++) {
                batch.add(message(gen, json));
            }
            Object document = size == 1 && gen.chance(0.2) ? batch.get(0) : batch;
            return new Rendered(batch, json.render(document), gen.chance(0.5));
        }, input -> {
            JsonCodec codec = new JsonCodec(16, 20, new Refusals()::count);
            List<Message.Mutable> decoded = input.asBytes()
                    ? codec.decode(pad(utf8(input.text()), 3), 3, utf8(input.text()).length)
                    : codec.decode(input.text());
            assertEquals(input.batch().size(), decoded.size(), "messages");
            for (int i = 0; i < decoded.size(); i++) {
                assertEquals(expectedFields(input.batch().get(i)), decoded.get(i).asMap(), "message " + i + " decoded");
            }
            assertSurvivesEncodingAndDecoding(codec, decoded);
        });
    }

    /**
     * A JSON number too large for a double ({@code 1e400}) is valid JSON: the codec may refuse it, but if it accepts
     * it, what it encodes must decode to the same value, not to a string such as {@code "Infinity"}.
     */
    @Test
    void aNumberPastTheRangeOfADoubleIsRefusedOrSurvivesTheRoundTrip() {
        Tries.forAll(TRIES, gen -> {
            String number = (gen.chance(0.5) ? "-" : "") + gen.between(1, 9) + (gen.chance(0.5) ? "." + gen.between(0, 999) : "")
                    + gen.pick("e", "E", "e+") + gen.between(309, 999);
            return "[{\"channel\":\"/a\",\"data\":" + (gen.chance(0.5) ? number : "{\"n\":[" + number + "]}") + "}]";
        }, text -> {
            Codec codec = new Codec(16, 20);
            Outcome outcome = codec.decodes(() -> codec.json.decode(text));
            if (outcome.messages() != null) {
                assertSurvivesEncodingAndDecoding(codec.json, outcome.messages());
            }
        });
    }

    private static void assertSurvivesEncodingAndDecoding(JsonCodec codec, List<Message.Mutable> decoded)
            throws MessageDecodeException {
        byte[] encoded = codec.encode(decoded);
        List<Message.Mutable> again = codec.decode(encoded, 0, encoded.length);
        assertEquals(decoded.size(), again.size(), "messages after the round trip");
        for (int i = 0; i < decoded.size(); i++) {
            if (!decoded.get(i).asMap().equals(again.get(i).asMap())) {
                fail("message " + i + " changed in the round trip: " + typed(decoded.get(i).asMap()) + " came back as "
                        + typed(again.get(i).asMap()) + ", encoded as " + new String(encoded, StandardCharsets.UTF_8));
            }
        }
    }

    /** A value with the Java type of every scalar, so that 1.0E400 and "Infinity" do not look alike. */
    private static String typed(Object value) {
        if (value instanceof Map<?, ?> map) {
            StringBuilder out = new StringBuilder("{");
            map.forEach((k, v) -> out.append(out.length() > 1 ? ", " : "").append(Tries.literal((String) k)).append('=')
                    .append(typed(v)));
            return out.append('}').toString();
        }
        if (value instanceof List<?> list) {
            return list.stream().map(JsonCodecPropertiesTest::typed).toList().toString();
        }
        if (value instanceof String text) {
            return Tries.literal(text);
        }
        return value == null ? "null" : value + " (" + value.getClass().getSimpleName() + ")";
    }

    // ---- limits ----

    @Test
    void nestingDeeperThanTheLimitIsRefusedAndCountedOnce() {
        Tries.forAll(TRIES, gen -> {
            int maxDepth = gen.between(2, 30);
            int depth = gen.chance(0.6) ? maxDepth + gen.between(-1, 1) : gen.between(1, maxDepth + 3);
            return new Nested(maxDepth, depth, nestedDocument(gen, Math.max(1, depth)), gen.chance(0.5));
        }, input -> {
            Codec codec = new Codec(input.maxDepth(), 1000);
            Outcome outcome = codec.decodes(() -> input.asBytes()
                    ? codec.json.decode(utf8(input.text()), 0, utf8(input.text()).length)
                    : codec.json.decode(input.text()));
            int depth = Math.max(1, input.depth());
            if (depth <= input.maxDepth()) {
                assertNull(outcome.refused(), "nesting " + depth + " is within maxJsonDepth " + input.maxDepth());
            } else {
                assertNotNull(outcome.refused(), "nesting " + depth + " is past maxJsonDepth " + input.maxDepth());
                assertEquals(MessageDecodeException.Bound.JSON_DEPTH, outcome.refused().bound());
            }
        });
    }

    @Test
    void moreMessagesThanTheLimitIsRefusedAndCountedOnce() {
        Tries.forAll(TRIES, gen -> {
            JsonGen json = new JsonGen(gen);
            int maxMessages = gen.between(1, 10);
            int count = gen.between(0, maxMessages + 3);
            List<Object> batch = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                batch.add(gen.chance(0.8) ? message(gen, json) : json.value(2));
            }
            return new Counted(maxMessages, count, json.render(batch));
        }, input -> {
            Codec codec = new Codec(64, input.maxMessages());
            Outcome outcome = codec.decodes(() -> codec.json.decode(input.text()));
            if (input.count() <= input.maxMessages()) {
                assertNull(outcome.refused(), input.count() + " messages, maxMessagesPerBatch " + input.maxMessages());
                assertEquals(input.count(), outcome.messages().size());
            } else {
                assertNotNull(outcome.refused(), input.count() + " messages, maxMessagesPerBatch " + input.maxMessages());
                assertEquals(MessageDecodeException.Bound.MESSAGES_PER_BATCH, outcome.refused().bound());
            }
        });
    }

    // ---- well-known fields of the wrong type ----

    @Test
    void aWellKnownFieldOfTheWrongTypeMarksItsMessageAndNotTheBatch() {
        Tries.forAll(TRIES, gen -> {
            JsonGen json = new JsonGen(gen);
            List<Map<String, Object>> batch = new ArrayList<>();
            int size = gen.between(1, 4);
            for (int i = 0; i < size; i++) {
                Map<String, Object> good = new LinkedHashMap<>();
                good.put(Message.CHANNEL, "/ok/" + i);
                good.put(Message.DATA, json.value(2));
                batch.add(good);
            }
            int bad = gen.between(0, size - 1);
            String field = gen.pick(WrongTypes.FIELDS);
            batch.get(bad).put(field, WrongTypes.valueFor(field, gen, json));
            return new Mistyped(json.render(batch), bad, field);
        }, input -> {
            List<Message.Mutable> decoded = new JsonCodec(64, 100, new Refusals()::count).decode(input.text());
            for (int i = 0; i < decoded.size(); i++) {
                BayeuxError error = ((MessageImpl) decoded.get(i)).decodeError();
                if (i == input.bad()) {
                    assertEquals(WrongTypes.errorFor(input.field()), error, input.field() + " of the wrong type");
                } else {
                    assertNull(error, "message " + i + " is well formed");
                }
            }
        });
    }

    // ---- inputs ----

    record Window(byte[] bytes, int offset) {
        @Override
        public String toString() {
            return "at offset " + offset + ": " + Tries.describe(bytes);
        }
    }

    record Rendered(List<Map<String, Object>> batch, String text, boolean asBytes) {
        @Override
        public String toString() {
            return (asBytes ? "bytes of " : "text ") + Tries.literal(text);
        }
    }

    record Nested(int maxDepth, int depth, String text, boolean asBytes) {
        @Override
        public String toString() {
            return "maxJsonDepth " + maxDepth + ", depth " + depth + ": " + Tries.literal(text);
        }
    }

    record Counted(int maxMessages, int count, String text) {
        @Override
        public String toString() {
            return "maxMessagesPerBatch " + maxMessages + ", " + count + " messages: " + Tries.literal(text);
        }
    }

    record Mistyped(String text, int bad, String field) {
        @Override
        public String toString() {
            return "message " + bad + "'s " + field + ": " + Tries.literal(text);
        }
    }

    private static Window anyBytes(Gen gen) {
        byte[] bytes = switch (gen.between(0, 3)) {
            case 0 -> gen.bytes(200);
            case 1 -> utf8(gen.string(JSON_CHARS, 60));
            case 2 -> mutate(gen, utf8(validBatchText(gen)));
            default -> utf8(validBatchText(gen));
        };
        return new Window(bytes, gen.between(0, 4));
    }

    private static String anyText(Gen gen) {
        return switch (gen.between(0, 3)) {
            case 0 -> gen.anyString(100);
            case 1 -> gen.string(JSON_CHARS, 60);
            case 2 -> new String(mutate(gen, utf8(validBatchText(gen))), StandardCharsets.UTF_8);
            default -> validBatchText(gen);
        };
    }

    private static String validBatchText(Gen gen) {
        JsonGen json = new JsonGen(gen);
        return json.render(gen.chance(0.7) ? json.array(gen.between(1, 8)) : json.value(gen.between(0, 8)));
    }

    /** Cut, drop, insert, change or repeat a piece of {@code bytes}. */
    private static byte[] mutate(Gen gen, byte[] bytes) {
        if (bytes.length == 0) {
            return bytes;
        }
        int at = gen.between(0, bytes.length - 1);
        byte[] result;
        switch (gen.between(0, 4)) {
            case 0 -> result = java.util.Arrays.copyOf(bytes, at);
            case 1 -> {
                result = new byte[bytes.length - 1];
                System.arraycopy(bytes, 0, result, 0, at);
                System.arraycopy(bytes, at + 1, result, at, bytes.length - at - 1);
            }
            case 2 -> {
                result = new byte[bytes.length + 1];
                System.arraycopy(bytes, 0, result, 0, at);
                result[at] = gen.chance(0.5) ? (byte) JSON_CHARS.charAt(gen.between(0, JSON_CHARS.length() - 1))
                        : (byte) gen.random().nextInt();
                System.arraycopy(bytes, at, result, at + 1, bytes.length - at);
            }
            case 3 -> {
                result = bytes.clone();
                result[at] = (byte) gen.random().nextInt();
            }
            default -> {
                int end = gen.between(at, bytes.length);
                result = new byte[bytes.length + end - at];
                System.arraycopy(bytes, 0, result, 0, end);
                System.arraycopy(bytes, at, result, end, bytes.length - at);
            }
        }
        return result;
    }

    /** A message as a client might send it: often the well-known fields, well or wrongly typed, and others. */
    static Map<String, Object> message(Gen gen, JsonGen json) {
        Map<String, Object> message = new LinkedHashMap<>();
        if (gen.chance(0.8)) {
            message.put(Message.CHANNEL, gen.chance(0.8) ? gen.pick("/a", "/meta/connect", "/a/*", "/service/s")
                    : json.value(1));
        }
        if (gen.chance(0.5)) {
            message.put(Message.ID, gen.chance(0.8) ? String.valueOf(gen.between(0, 99)) : json.value(1));
        }
        if (gen.chance(0.7)) {
            message.put(Message.DATA, json.value(4));
        }
        if (gen.chance(0.3)) {
            message.put(Message.EXT, gen.chance(0.8) ? json.object(3) : json.value(2));
        }
        int others = gen.length(3);
        for (int i = 0; i < others; i++) {
            message.put(json.name(), json.value(3));
        }
        return message;
    }

    /** The fields the codec keeps: nulls at the top level are dropped, and so is an id of the wrong type. */
    private static Map<String, Object> expectedFields(Map<String, Object> message) {
        Map<String, Object> expected = new LinkedHashMap<>();
        message.forEach((field, value) -> {
            boolean badId = Message.ID.equals(field) && !(value instanceof String || value instanceof Number);
            if (value != null && !badId) {
                expected.put(field, value);
            }
        });
        return expected;
    }

    /**
     * A document whose deepest nesting of arrays and objects is exactly {@code depth}: a batch array, a message object,
     * and a chain of containers below it; a lone message object; or a batch whose element is the chain itself.
     */
    private static String nestedDocument(Gen gen, int depth) {
        if (depth == 1) {
            return gen.pick("[]", "{}", "[1]", "{\"channel\":\"/a\"}");
        }
        return switch (gen.between(0, 2)) {
            case 0 -> "[{\"channel\":\"/a\",\"data\":" + chain(gen, depth - 2) + "}]";
            case 1 -> "{\"channel\":\"/a\",\"ext\":" + chain(gen, depth - 1) + "}";
            default -> "[" + chain(gen, depth - 1) + "]";
        };
    }

    /** Exactly {@code depth} nested containers (0: a scalar), with shallower siblings along the way. */
    private static String chain(Gen gen, int depth) {
        if (depth == 0) {
            return gen.pick("1", "\"s\"", "null", "true");
        }
        String sibling = depth > 1 && gen.chance(0.3) ? gen.pick("[],", "{},", "0,") : "";
        String inner = chain(gen, depth - 1);
        if (gen.chance(0.5)) {
            return "[" + sibling + inner + "]";
        }
        return "{" + (sibling.isEmpty() ? "" : "\"s\":" + sibling) + "\"n\":" + inner + "}";
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code bytes} at {@code offset} in a larger array, with bytes around them that are not theirs. */
    private static byte[] pad(byte[] bytes, int offset) {
        byte[] padded = new byte[offset + bytes.length + 3];
        java.util.Arrays.fill(padded, (byte) '[');
        System.arraycopy(bytes, 0, padded, offset, bytes.length);
        return padded;
    }

    // ---- checking one decode ----

    @FunctionalInterface
    interface Decode {
        List<Message.Mutable> decode() throws MessageDecodeException;
    }

    record Outcome(List<Message.Mutable> messages, MessageDecodeException refused) {
    }

    /** A server's codec with its refusal counters. */
    private static final class Codec {
        final Refusals refusals = new Refusals();
        final JsonCodec json;

        Codec(int maxDepth, int maxMessages) {
            this.json = new JsonCodec(maxDepth, maxMessages, refusals::count);
        }

        /**
         * Decodes, and checks the outcome: messages (none null), or a refusal with a one-line reason, counted under its
         * limit if it has one and not counted otherwise. Anything else thrown fails the property.
         */
        Outcome decodes(Decode decode) {
            Map<Limit, Long> before = new EnumMap<>(refusals.snapshot());
            Outcome outcome;
            try {
                List<Message.Mutable> messages = decode.decode();
                assertNotNull(messages);
                messages.forEach(message -> assertNotNull(message, "a decoded message"));
                outcome = new Outcome(messages, null);
            } catch (MessageDecodeException refused) {
                String reason = refused.getMessage();
                assertTrue(reason != null && !reason.isBlank() && !reason.contains("\n"), "one line: " + reason);
                outcome = new Outcome(null, refused);
            } catch (Throwable other) {
                return fail("decode threw " + other + " instead of refusing with MessageDecodeException", other);
            }
            Map<Limit, Long> expected = new EnumMap<>(before);
            if (outcome.refused() != null && outcome.refused().bound() != null) {
                expected.merge(Refusals.limitOf(outcome.refused().bound()), 1L, Long::sum);
            }
            assertEquals(expected, refusals.snapshot(), "refusals counted");
            assertFalse(outcome.messages() == null && outcome.refused() == null);
            return outcome;
        }
    }
}
