package io.weft.bayeux.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.Message;
import io.weft.bayeux.MessageDecodeException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonCodecTest {
    private final JsonCodec codec = new JsonCodec();

    @Test
    void decodesAnArrayOfMessages() throws Exception {
        List<Message.Mutable> batch = codec.decode("[{\"channel\":\"/a\",\"id\":\"1\",\"data\":{\"x\":[1,2.5,true,null]}},"
                + "{\"channel\":\"/meta/connect\",\"clientId\":\"c\",\"advice\":{\"timeout\":0}}]");
        assertEquals(2, batch.size());
        Message first = batch.get(0);
        assertEquals("/a", first.getChannel());
        assertEquals("1", first.getId());
        Map<String, Object> data = first.getDataAsMap();
        assertEquals(List.of(1, 2.5, true), ((List<?>) data.get("x")).subList(0, 3));
        assertNull(((List<?>) data.get("x")).get(3));
        assertEquals("c", batch.get(1).getClientId());
        assertEquals(0, batch.get(1).getAdvice().get("timeout"));
    }

    @Test
    void decodesASingleObjectAsABatchOfOne() throws Exception {
        List<Message.Mutable> batch = codec.decode("{\"channel\":\"/meta/handshake\"}");
        assertEquals(1, batch.size());
        assertEquals("/meta/handshake", batch.get(0).getChannel());
    }

    @Test
    void decodesBytesWithOffset() throws Exception {
        byte[] bytes = "xx[{\"channel\":\"/é\"}]yy".getBytes(StandardCharsets.UTF_8);
        List<Message.Mutable> batch = codec.decode(bytes, 2, bytes.length - 4);
        assertEquals("/é", batch.get(0).getChannel());
    }

    @Test
    void bodyThatIsNotJsonIsAOneLineError() {
        for (String body : List.of("hello", "[{\"channel\":", "", "42", "\"text\"", "[{}] trailing", "[1,")) {
            MessageDecodeException x = assertThrows(MessageDecodeException.class, () -> codec.decode(body), body);
            assertTrue(!x.getMessage().contains("\n"), x.getMessage());
        }
    }

    @Test
    void theReasonNamesWhatWasFound() {
        MessageDecodeException x = assertThrows(MessageDecodeException.class, () -> codec.decode("\"just a string\""));
        assertTrue(x.getMessage().endsWith("found a string"), x.getMessage());
    }

    @Test
    void malformedElementsAreMarkedAndTheRestDecoded() throws Exception {
        List<Message.Mutable> batch = codec.decode("[42, {\"channel\":5,\"id\":\"7\"}, {\"channel\":\"/a\",\"ext\":\"x\"},"
                + "{\"channel\":\"/a\",\"id\":{\"no\":1}}, {\"channel\":\"/ok\"}]");
        assertEquals(5, batch.size());
        assertEquals(BayeuxError.MESSAGE_INVALID, ((MessageImpl) batch.get(0)).decodeError());
        assertEquals(BayeuxError.CHANNEL_INVALID, ((MessageImpl) batch.get(1)).decodeError());
        assertEquals("7", batch.get(1).getId());
        assertEquals(BayeuxError.MESSAGE_INVALID, ((MessageImpl) batch.get(2)).decodeError());
        assertEquals(BayeuxError.MESSAGE_INVALID, ((MessageImpl) batch.get(3)).decodeError());
        assertNull(batch.get(3).getId(), "an id of the wrong type is not echoed");
        assertNull(((MessageImpl) batch.get(4)).decodeError());
    }

    @Test
    void numericIdIsEchoedAsANumber() throws Exception {
        Message message = codec.decode("[{\"channel\":\"/a\",\"id\":12}]").get(0);
        assertEquals("12", message.getId());
        assertEquals(12, message.get(Message.ID));
    }

    @Test
    void encodesAFrozenMessageOnceAndSharesTheBytes() {
        MessageImpl message = new MessageImpl();
        message.setChannel("/a").setData(Map.of("k", "v")).setId("9");
        message.freeze();
        long before = codec.encodedMessages();
        byte[] one = codec.encode(List.of(message));
        byte[] two = codec.encode(List.of(message, message));
        assertEquals(before + 1, codec.encodedMessages());
        assertEquals("[{\"channel\":\"/a\",\"data\":{\"k\":\"v\"},\"id\":\"9\"}]", new String(one, StandardCharsets.UTF_8));
        assertEquals("[{\"channel\":\"/a\",\"data\":{\"k\":\"v\"},\"id\":\"9\"},{\"channel\":\"/a\",\"data\":{\"k\":\"v\"},\"id\":\"9\"}]",
                new String(two, StandardCharsets.UTF_8));
        assertSame(message.json(codec), message.json(codec));
    }

    @Test
    void roundTripsUnicodeAndApplicationObjects() throws Exception {
        MessageImpl message = new MessageImpl();
        message.setChannel("/a").setData(List.of("ünï\u2028", 1.5, Long.MAX_VALUE, new int[] {1, 2}));
        byte[] json = codec.encode(List.of(message));
        Message back = codec.decode(json, 0, json.length).get(0);
        assertEquals(List.of("ünï\u2028", 1.5, Long.MAX_VALUE, List.of(1, 2)), back.getData());
    }

    @Test
    void aNumberPastADoublesRangeSurvivesTheRoundTripAsANumber() throws Exception {
        String body = "[{\"channel\":\"/a\",\"data\":[1e400,-1e400,1.5e-400]}]";
        Message decoded = codec.decode(body).get(0);
        byte[] json = codec.encode(List.of(decoded));
        List<?> back = (List<?>) codec.decode(json, 0, json.length).get(0).getData();
        assertEquals(new java.math.BigDecimal("1e400"), back.get(0));
        assertEquals(new java.math.BigDecimal("-1e400"), back.get(1));
        assertEquals(0.0, back.get(2), "an underflow is a double zero, still a number");
    }

    /** Found by JsonCodecPropertiesTest: an exponent no number type holds escaped as a NumberFormatException. */
    @Test
    void aNumberPastEveryRangeIsRefusedAsBadJson() {
        for (String number : List.of("49694.8e3932631301", "1e2147483648", "-2.5e99999999999")) {
            String body = "[{\"channel\":\"/a\",\"data\":" + number + "}]";
            MessageDecodeException x = assertThrows(MessageDecodeException.class, () -> codec.decode(body), body);
            assertTrue(x.getMessage().startsWith("not valid JSON: number out of range"), x.getMessage());
        }
    }

    @Test
    void frozenMessagesRefuseChanges() {
        MessageImpl message = new MessageImpl();
        message.setChannel("/a");
        message.freeze();
        assertThrows(IllegalStateException.class, () -> message.setData("x"));
        assertThrows(IllegalStateException.class, () -> message.remove("channel"));
        assertArrayEquals(message.json(codec), message.json(codec));
    }

    @Test
    void copyIsMutableAndIndependent() {
        MessageImpl message = new MessageImpl();
        message.setChannel("/a").getExt(true).put("k", 1);
        message.freeze();
        MessageImpl copy = message.copy();
        copy.getExt(true).put("k", 2);
        copy.setChannel("/b");
        assertEquals(1, message.getExt().get("k"));
        assertEquals("/a", message.getChannel());
        assertEquals("/b", copy.getChannelId().id());
    }

    @Test
    void aBatchOfFrozenAndUnfrozenMessagesIsOneArrayOfItsOwn() {
        MessageImpl delivery = new MessageImpl();
        delivery.setChannel("/a").setData("d");
        delivery.freeze();
        MessageImpl reply = new MessageImpl();
        reply.setChannel("/meta/connect").setSuccessful(true).put("advice", Map.of("interval", 0));
        byte[] first = codec.encode(List.of(delivery, reply));
        byte[] large = codec.encode(List.of(delivery, new MessageImpl().setChannel("/b").setData("x".repeat(40_000))));
        byte[] again = codec.encode(List.of(reply, delivery));
        String expected = "[{\"channel\":\"/a\",\"data\":\"d\"},{\"channel\":\"/meta/connect\",\"successful\":true,"
                + "\"advice\":{\"interval\":0}}]";
        assertEquals(expected, new String(first, StandardCharsets.UTF_8), "not overwritten by the batches after it");
        assertEquals("x".repeat(40_000), decoded(large).get(1).getData());
        assertEquals("[{\"channel\":\"/meta/connect\",\"successful\":true,\"advice\":{\"interval\":0}},"
                + "{\"channel\":\"/a\",\"data\":\"d\"}]", new String(again, StandardCharsets.UTF_8));
    }

    @Test
    void anApplicationObjectThatEncodesWhileItIsEncodedGetsBothRight() {
        MessageImpl inner = new MessageImpl();
        inner.setChannel("/inner").setData(1);
        MessageImpl outer = new MessageImpl();
        outer.setChannel("/outer").setData(new Reentrant(codec, inner));
        assertEquals("[{\"channel\":\"/outer\",\"data\":{\"json\":\"[{\\\"channel\\\":\\\"/inner\\\",\\\"data\\\":1}]\"}},"
                + "{\"channel\":\"/x\"}]",
                new String(codec.encode(List.of(outer, new MessageImpl().setChannel("/x"))), StandardCharsets.UTF_8));
    }

    @Test
    void aMessageThatFailsToEncodeLeavesTheNextOneWhole() {
        MessageImpl failing = new MessageImpl();
        failing.setChannel("/a").setData(Map.of("list", List.of(1, 2), "bad", new Failing()));
        assertThrows(RuntimeException.class, () -> codec.encode(List.of(failing)));
        MessageImpl next = new MessageImpl();
        next.setChannel("/b").setData(Map.of("k", "v"));
        assertEquals("[{\"channel\":\"/b\",\"data\":{\"k\":\"v\"}}]",
                new String(codec.encode(List.of(next)), StandardCharsets.UTF_8));
        assertEquals("[{\"channel\":\"/b\",\"data\":{\"k\":\"v\"}},{\"channel\":\"/b\",\"data\":{\"k\":\"v\"}}]",
                new String(codec.encode(List.of(next, next)), StandardCharsets.UTF_8));
    }

    /** An application's object whose serialization fails half-way through a message. */
    public static final class Failing {
        public String getValue() {
            throw new IllegalStateException("cannot be written");
        }
    }

    private List<Message.Mutable> decoded(byte[] json) {
        try {
            return codec.decode(json, 0, json.length);
        } catch (MessageDecodeException x) {
            throw new AssertionError(x);
        }
    }

    /** An application's object whose getter encodes another batch with the same codec, on the same thread. */
    public static final class Reentrant {
        private final JsonCodec codec;
        private final MessageImpl message;

        Reentrant(JsonCodec codec, MessageImpl message) {
            this.codec = codec;
            this.message = message;
        }

        public String getJson() {
            return new String(codec.encode(List.of(message, new MessageImpl().setChannel("/y"))), StandardCharsets.UTF_8)
                    .replace(",{\"channel\":\"/y\"}", "");
        }
    }
}
