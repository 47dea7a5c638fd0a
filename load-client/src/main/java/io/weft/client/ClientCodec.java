package io.weft.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.weft.server.api.Message;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The client's JSON codec, on Jackson's streaming API: one pass in each direction, no data binding. Decoded values
 * are {@link String}, {@link Long} (or {@link BigInteger}), {@link Double} (or {@link BigDecimal}), {@link Boolean},
 * {@code null}, {@link List} and {@link LinkedHashMap}. Encodable values are those, plus any {@link Number},
 * {@link Iterable}, {@code Object[]}, {@link Character} and {@link Enum} (by name). Thread-safe.
 */
final class ClientCodec {
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build())
            .build();

    private ClientCodec() {
    }

    /** Decodes a body or frame: a JSON array of message objects, or one object. */
    static List<ClientMessage> decode(byte[] json, int offset, int length) throws IOException {
        try (JsonParser parser = FACTORY.createParser(json, offset, length)) {
            return decode(parser);
        }
    }

    static List<ClientMessage> decode(String json) throws IOException {
        try (JsonParser parser = FACTORY.createParser(json)) {
            return decode(parser);
        }
    }

    private static List<ClientMessage> decode(JsonParser parser) throws IOException {
        JsonToken token = parser.nextToken();
        List<ClientMessage> messages = new ArrayList<>();
        if (token == JsonToken.START_OBJECT) {
            messages.add(new ClientMessage(readObject(parser)));
        } else if (token == JsonToken.START_ARRAY) {
            while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
                if (token != JsonToken.START_OBJECT) {
                    throw new IOException("not a Bayeux message: " + token + " in the array");
                }
                messages.add(new ClientMessage(readObject(parser)));
            }
        } else {
            throw new IOException("not a Bayeux batch: starts with " + token);
        }
        if (parser.nextToken() != null) {
            throw new IOException("trailing content after the batch");
        }
        return messages;
    }

    private static Map<String, Object> readObject(JsonParser parser) throws IOException {
        Map<String, Object> object = new LinkedHashMap<>(8);
        String name;
        while ((name = parser.nextFieldName()) != null) {
            object.put(name, readValue(parser, parser.nextToken()));
        }
        return object;
    }

    private static Object readValue(JsonParser parser, JsonToken token) throws IOException {
        switch (token) {
            case START_OBJECT:
                return readObject(parser);
            case START_ARRAY: {
                List<Object> list = new ArrayList<>();
                while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
                    list.add(readValue(parser, token));
                }
                return list;
            }
            case VALUE_STRING:
                return parser.getText();
            case VALUE_NUMBER_INT:
                return parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                        ? parser.getBigIntegerValue() : (Object) parser.getLongValue();
            case VALUE_NUMBER_FLOAT:
                return parser.getNumberType() == JsonParser.NumberType.BIG_DECIMAL
                        ? parser.getDecimalValue() : (Object) parser.getDoubleValue();
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            default:
                throw new IOException("unexpected JSON token " + token);
        }
    }

    /** The messages as one JSON array, UTF-8. @throws IllegalArgumentException for a value JSON cannot carry */
    static byte[] encode(List<? extends Message> messages) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128 * messages.size());
        try (JsonGenerator generator = FACTORY.createGenerator(out)) {
            generator.writeStartArray();
            for (Message message : messages) {
                writeValue(generator, message.asMap());
            }
            generator.writeEndArray();
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
        return out.toByteArray();
    }

    /** As {@link #encode(List)}, as text (a WebSocket frame). */
    static String encodeText(List<? extends Message> messages) {
        StringWriter out = new StringWriter(128 * messages.size());
        try (JsonGenerator generator = FACTORY.createGenerator(out)) {
            generator.writeStartArray();
            for (Message message : messages) {
                writeValue(generator, message.asMap());
            }
            generator.writeEndArray();
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
        return out.toString();
    }

    static String toJson(Object value) {
        StringWriter out = new StringWriter();
        try (JsonGenerator generator = FACTORY.createGenerator(out)) {
            writeValue(generator, value);
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
        return out.toString();
    }

    private static void writeValue(JsonGenerator generator, Object value) throws IOException {
        if (value == null) {
            generator.writeNull();
        } else if (value instanceof String s) {
            generator.writeString(s);
        } else if (value instanceof Boolean b) {
            generator.writeBoolean(b);
        } else if (value instanceof Integer || value instanceof Long || value instanceof Short
                || value instanceof Byte) {
            generator.writeNumber(((Number) value).longValue());
        } else if (value instanceof Double || value instanceof Float) {
            generator.writeNumber(((Number) value).doubleValue());
        } else if (value instanceof BigInteger i) {
            generator.writeNumber(i);
        } else if (value instanceof BigDecimal d) {
            generator.writeNumber(d);
        } else if (value instanceof Number n) {
            generator.writeNumber(n.toString());
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
        } else if (value instanceof Object[] array) {
            generator.writeStartArray();
            for (Object element : array) {
                writeValue(generator, element);
            }
            generator.writeEndArray();
        } else if (value instanceof Character || value instanceof Enum<?>) {
            generator.writeString(value instanceof Enum<?> e ? e.name() : value.toString());
        } else {
            throw new IllegalArgumentException("not a JSON value: " + value.getClass().getName());
        }
    }
}
