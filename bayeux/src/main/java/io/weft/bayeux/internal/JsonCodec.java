package io.weft.bayeux.internal;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.Codec;
import io.weft.bayeux.Message;
import io.weft.bayeux.MessageDecodeException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The Jackson codec. Decoding streams tokens straight into messages (one pass, no intermediate tree); values become
 * plain Java maps, lists, strings, numbers and booleans. Encoding writes those back; any other object a server
 * application puts into a message is written by Jackson databind.
 */
public final class JsonCodec implements Codec {
    /** The nesting allowed where no server sets it (a client's codec): deep enough for any sane payload. */
    private static final int DEFAULT_MAX_DEPTH = 200;
    private static final JsonCodec SHARED = new JsonCodec();

    private final JsonFactory factory;
    private final ObjectMapper mapper;
    private final int maxMessages;
    private final Consumer<MessageDecodeException.Bound> overBound;
    private final LongAdder encodedMessages = new LongAdder();
    private final ThreadLocal<Encoder> encoders = ThreadLocal.withInitial(Encoder::new);

    /** A codec without a server's limits: for clients and messages never sent. */
    public JsonCodec() {
        this(DEFAULT_MAX_DEPTH, Integer.MAX_VALUE, null);
    }

    /**
     * A server's codec: input nested deeper than {@code maxDepth} or holding more than {@code maxMessages} messages
     * is refused while it is read (nothing past the bound is parsed), and {@code overBound} is told which bound it
     * went past (the server counts it) before the exception is thrown.
     */
    public JsonCodec(int maxDepth, int maxMessages, Consumer<MessageDecodeException.Bound> overBound) {
        this.factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(maxDepth).build())
                .build();
        this.mapper = new ObjectMapper(factory);
        this.maxMessages = maxMessages;
        this.overBound = overBound;
    }

    /** A codec for code that has no server at hand ({@link Message#toJson()} of a message never sent). */
    public static JsonCodec shared() {
        return SHARED;
    }

    /** How many single messages this codec has encoded ({@code ServerStats.messagesEncoded}). */
    public long encodedMessages() {
        return encodedMessages.sum();
    }

    @Override
    public List<Message.Mutable> decode(byte[] json, int offset, int length) throws MessageDecodeException {
        try (JsonParser parser = factory.createParser(json, offset, length)) {
            return decode(parser);
        } catch (IOException x) {
            throw refused(x);
        }
    }

    @Override
    public List<Message.Mutable> decode(String json) throws MessageDecodeException {
        try (JsonParser parser = factory.createParser(json)) {
            return decode(parser);
        } catch (IOException x) {
            throw refused(x);
        }
    }

    private MessageDecodeException refused(IOException x) {
        if (x instanceof StreamConstraintsException && String.valueOf(x.getMessage()).contains("nesting depth")) {
            return overBound("JSON nested deeper than maxJsonDepth allows", MessageDecodeException.Bound.JSON_DEPTH);
        }
        if (x instanceof JsonProcessingException) {
            return new MessageDecodeException("not valid JSON: " + oneLine(x));
        }
        return new MessageDecodeException("unreadable JSON: " + oneLine(x));
    }

    private MessageDecodeException overBound(String reason, MessageDecodeException.Bound bound) {
        if (overBound != null) {
            overBound.accept(bound);
        }
        return new MessageDecodeException(reason, bound);
    }

    private static String oneLine(Exception x) {
        String text = x instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : x.getMessage();
        if (text == null) {
            return x.getClass().getSimpleName();
        }
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }

    private List<Message.Mutable> decode(JsonParser parser) throws IOException, MessageDecodeException {
        JsonToken first = parser.nextToken();
        List<Message.Mutable> batch;
        if (first == JsonToken.START_ARRAY) {
            batch = new ArrayList<>(4);
            JsonToken token;
            while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
                if (token == null) {
                    throw new MessageDecodeException("not valid JSON: unexpected end of input");
                }
                if (batch.size() == maxMessages) {
                    throw overBound("more than " + maxMessages + " messages in one batch (maxMessagesPerBatch)",
                            MessageDecodeException.Bound.MESSAGES_PER_BATCH);
                }
                batch.add(readMessage(parser, token));
            }
        } else if (first == JsonToken.START_OBJECT) {
            batch = List.of(readMessage(parser, first));
        } else if (first == null) {
            throw new MessageDecodeException("empty body: expected a JSON array of Bayeux messages");
        } else {
            throw new MessageDecodeException("expected a JSON array or object of Bayeux messages, found " + describe(first));
        }
        if (parser.nextToken() != null) {
            throw new MessageDecodeException("not valid JSON: content after the end of the batch");
        }
        return batch;
    }

    private static String describe(JsonToken token) {
        return switch (token) {
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> token.name();
        };
    }

    private MessageImpl readMessage(JsonParser parser, JsonToken token) throws IOException {
        MessageImpl message = new MessageImpl();
        if (token != JsonToken.START_OBJECT) {
            parser.skipChildren();
            message.decodeError(BayeuxError.MESSAGE_INVALID);
            return message;
        }
        Map<String, Object> fields = message.fields();
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken valueToken = parser.nextToken();
            Object value = readValue(parser, valueToken);
            if (value == null) {
                continue;
            }
            if (value instanceof String text && (Message.CHANNEL.equals(field) || Message.CONNECTION_TYPE.equals(field)
                    || Message.VERSION.equals(field))) {
                value = KnownValues.canonical(text);
            }
            BayeuxError problem = checkType(field, value);
            if (problem != null && message.decodeError() == null) {
                message.decodeError(problem);
            }
            // An id of the wrong type is not echoed back; any other field is kept as sent.
            if (problem == null || !Message.ID.equals(field)) {
                fields.put(field, value);
            }
        }
        return message;
    }

    /** The type rules for the fields the engine reads; a mismatch makes the message invalid. */
    private static BayeuxError checkType(String field, Object value) {
        return switch (field) {
            case Message.CHANNEL -> value instanceof String ? null : BayeuxError.CHANNEL_INVALID;
            case Message.ID -> value instanceof String || value instanceof Number ? null : BayeuxError.MESSAGE_INVALID;
            case Message.CLIENT_ID, Message.CONNECTION_TYPE -> value instanceof String ? null : BayeuxError.MESSAGE_INVALID;
            case Message.EXT, Message.ADVICE -> value instanceof Map ? null : BayeuxError.MESSAGE_INVALID;
            case Message.SUBSCRIPTION -> value instanceof String || value instanceof List ? null : BayeuxError.MESSAGE_INVALID;
            case Message.SUPPORTED_CONNECTION_TYPES -> value instanceof List ? null : BayeuxError.MESSAGE_INVALID;
            default -> null;
        };
    }

    private Object readValue(JsonParser parser, JsonToken token) throws IOException {
        switch (token) {
            case START_OBJECT: {
                Map<String, Object> map = new LinkedHashMap<>();
                String name;
                while ((name = parser.nextFieldName()) != null) {
                    map.put(name, readValue(parser, parser.nextToken()));
                }
                return map;
            }
            case START_ARRAY: {
                List<Object> list = new ArrayList<>();
                JsonToken element;
                while ((element = parser.nextToken()) != JsonToken.END_ARRAY) {
                    list.add(readValue(parser, element));
                }
                return list;
            }
            case VALUE_STRING:
                return parser.getText();
            case VALUE_NUMBER_INT:
                return parser.getNumberValue();
            case VALUE_NUMBER_FLOAT: {
                // A double unless it does not fit one: 1e400 as a double is Infinity, which JSON cannot carry back.
                Number number = parser.getNumberValue();
                if (!(number instanceof Double value && value.isInfinite())) {
                    return number;
                }
                try {
                    return parser.getDecimalValue();
                } catch (NumberFormatException tooLarge) {
                    // an exponent past what any number type holds (1e3000000000): refused as bad JSON
                    throw new JsonParseException(parser, "number out of range", tooLarge);
                }
            }
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            default:
                throw new IOException("unexpected token " + token);
        }
    }

    @Override
    public byte[] encode(List<? extends Message> messages) {
        if (messages.size() == 1) {
            Message message = messages.get(0);
            return message instanceof MessageImpl impl ? impl.alone(this) : inArray(json(message));
        }
        byte[][] parts = new byte[messages.size()][];
        int length = 2 + Math.max(0, parts.length - 1);
        for (int i = 0; i < parts.length; i++) {
            parts[i] = json(messages.get(i));
            length += parts[i].length;
        }
        byte[] result = new byte[length];
        int position = 0;
        result[position++] = '[';
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                result[position++] = ',';
            }
            System.arraycopy(parts[i], 0, result, position, parts[i].length);
            position += parts[i].length;
        }
        result[position] = ']';
        return result;
    }

    /** {@code [json]}. */
    static byte[] inArray(byte[] one) {
        byte[] result = new byte[one.length + 2];
        result[0] = '[';
        System.arraycopy(one, 0, result, 1, one.length);
        result[result.length - 1] = ']';
        return result;
    }

    /**
     * How many bytes {@code message} takes in a batch this codec encodes (without the comma between two): for a frozen
     * message, the length of its JSON computed once and kept, so asking again costs nothing.
     */
    public int encodedLength(Message message) {
        return json(message).length;
    }

    private byte[] json(Message message) {
        if (message instanceof MessageImpl impl) {
            return impl.json(this);
        }
        return encodeFields(message.asMap());
    }

    /** Encodes one message; frozen messages call this once through {@link MessageImpl#json(JsonCodec)}. */
    byte[] encodeOne(MessageImpl message) {
        encodedMessages.increment();
        return encodeFields(message.fields());
    }

    private byte[] encodeFields(Map<String, Object> fields) {
        Encoder encoder = encoders.get();
        if (encoder.inUse) {
            return encodeFieldsAlone(fields); // an application's serializer encoding while this thread encodes
        }
        encoder.inUse = true;
        boolean done = false;
        try {
            encoder.out.reset();
            writeValue(encoder.generator, fields);
            encoder.generator.flush();
            done = true;
            return encoder.out.toByteArray();
        } catch (IOException x) {
            throw new UncheckedIOException("cannot encode message " + fields.get(Message.CHANNEL), x);
        } finally {
            encoder.release(done);
        }
    }

    private byte[] encodeFieldsAlone(Map<String, Object> fields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128);
        try (JsonGenerator generator = factory.createGenerator(out, JsonEncoding.UTF8)) {
            writeValue(generator, fields);
        } catch (IOException x) {
            throw new UncheckedIOException("cannot encode message " + fields.get(Message.CHANNEL), x);
        }
        return out.toByteArray();
    }

    /**
     * A thread's generator, kept from one message to the next (creating one costs more than writing a reply), writing
     * into a buffer that is reset per message. One that failed half-way is replaced: its state is unknown.
     */
    private final class Encoder {
        final Bytes out = new Bytes();
        JsonGenerator generator = newGenerator();
        boolean inUse;

        private JsonGenerator newGenerator() {
            try {
                JsonGenerator created = factory.createGenerator(out, JsonEncoding.UTF8);
                created.setRootValueSeparator(null); // messages one after the other, not separated by a space
                return created;
            } catch (IOException x) {
                throw new UncheckedIOException(x);
            }
        }

        void release(boolean done) {
            inUse = false;
            if (!done) {
                try {
                    generator.close();
                } catch (IOException | RuntimeException x) {
                    // replaced anyway
                }
                generator = newGenerator();
            }
            out.trim();
        }
    }

    /** An unsynchronized byte sink; its array is kept between messages unless a large one grew it. */
    private static final class Bytes extends OutputStream {
        private static final int KEPT = 16 * 1024;
        private byte[] buf = new byte[256];
        private int count;

        @Override
        public void write(int b) {
            ensure(1);
            buf[count++] = (byte) b;
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            ensure(length);
            System.arraycopy(bytes, offset, buf, count, length);
            count += length;
        }

        private void ensure(int more) {
            if (count + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + more));
            }
        }

        void reset() {
            count = 0;
        }

        byte[] toByteArray() {
            return Arrays.copyOf(buf, count);
        }

        void trim() {
            if (buf.length > KEPT) {
                buf = new byte[256];
            }
        }
    }

    private void writeValue(JsonGenerator generator, Object value) throws IOException {
        if (value == null) {
            generator.writeNull();
        } else if (value instanceof String text) {
            generator.writeString(text);
        } else if (value instanceof Boolean bool) {
            generator.writeBoolean(bool);
        } else if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            generator.writeNumber(((Number) value).longValue());
        } else if (value instanceof Map<?, ?> map) {
            generator.writeStartObject();
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                generator.writeFieldName(String.valueOf(entry.getKey()));
                writeValue(generator, entry.getValue());
            }
            generator.writeEndObject();
        } else if (value instanceof Iterable<?> iterable) {
            generator.writeStartArray();
            for (Object element : iterable) {
                writeValue(generator, element);
            }
            generator.writeEndArray();
        } else {
            // Doubles, BigDecimals, arrays and application objects: databind knows them all.
            mapper.writeValue(generator, value);
        }
    }
}
