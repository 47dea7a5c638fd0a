package io.weft.transport.common;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parameters of a query string or an {@code application/x-www-form-urlencoded} body, decoded as UTF-8. Parsed here,
 * not by the container, so both adapters read parameters the same way and under the same size limit.
 */
final class FormParameters {
    private final Map<String, List<String>> values;

    private FormParameters(Map<String, List<String>> values) {
        this.values = values;
    }

    static final FormParameters EMPTY = new FormParameters(Map.of());

    /**
     * Parses {@code name=value&...}; null or empty gives no parameters.
     *
     * @throws IllegalArgumentException if a percent escape is malformed
     */
    static FormParameters parse(String encoded) {
        if (encoded == null || encoded.isEmpty()) {
            return EMPTY;
        }
        Map<String, List<String>> values = new LinkedHashMap<>();
        int start = 0;
        while (start <= encoded.length()) {
            int end = encoded.indexOf('&', start);
            if (end < 0) {
                end = encoded.length();
            }
            if (end > start) {
                String pair = encoded.substring(start, end);
                int equals = pair.indexOf('=');
                String name = decode(equals < 0 ? pair : pair.substring(0, equals));
                String value = equals < 0 ? "" : decode(pair.substring(equals + 1));
                values.computeIfAbsent(name, n -> new ArrayList<>(1)).add(value);
            }
            start = end + 1;
        }
        return new FormParameters(values);
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    /** The first value of {@code name}, or null. */
    String first(String name) {
        List<String> list = values.get(name);
        return list == null || list.isEmpty() ? null : list.get(0);
    }

    /** Every value of {@code name}; empty if none. */
    List<String> all(String name) {
        return values.getOrDefault(name, List.of());
    }

    /** These parameters followed by {@code more}'s, name by name. */
    FormParameters and(FormParameters more) {
        if (more.values.isEmpty()) {
            return this;
        }
        if (values.isEmpty()) {
            return more;
        }
        Map<String, List<String>> merged = new LinkedHashMap<>();
        values.forEach((name, list) -> merged.put(name, new ArrayList<>(list)));
        more.values.forEach((name, list) -> merged.computeIfAbsent(name, n -> new ArrayList<>()).addAll(list));
        return new FormParameters(merged);
    }
}
