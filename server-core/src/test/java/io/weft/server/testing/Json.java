package io.weft.server.testing;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/** Reading replies in tests: a JSON array of objects into maps. */
public final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    public static List<Map<String, Object>> array(String json) {
        try {
            return MAPPER.readValue(json, new TypeReference<>() { });
        } catch (IOException x) {
            throw new UncheckedIOException("not a JSON array of objects: " + json, x);
        }
    }

    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }
}
