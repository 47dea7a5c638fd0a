package io.weft.server.testing;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Generated JSON: values as the engine's codec decodes them ({@link String}, {@link Integer}, {@link Long},
 * {@link BigInteger}, {@link Double}, {@link Boolean}, null, {@link LinkedHashMap}, {@link ArrayList}), and their text
 * written the many ways JSON allows: any whitespace between tokens, any character escaped or not, exponents in
 * either case and with or without a sign.
 */
public final class JsonGen {
    private static final String[] WHITESPACE = {"", "", "", " ", "\n", "\t", "\r\n ", "  "};
    private static final String[] NAMES = {"channel", "id", "clientId", "data", "ext", "advice", "successful",
        "subscription", "connectionType", "version", "supportedConnectionTypes", "timestamp", "error", "x", ""};

    private final Gen gen;

    public JsonGen(Gen gen) {
        this.gen = gen;
    }

    /** Any JSON value, nested at most {@code depth} containers deep (0: a scalar). */
    public Object value(int depth) {
        int kind = gen.between(0, depth > 0 ? 9 : 6);
        return switch (kind) {
            case 0, 1 -> string();
            case 2, 3 -> number();
            case 4 -> gen.chance(0.5);
            case 5 -> null;
            case 6 -> gen.pick(0, -1, "", "x");
            case 7 -> array(depth - 1);
            default -> object(depth - 1);
        };
    }

    /** An array of values nested at most {@code depth} deep. */
    public List<Object> array(int depth) {
        int length = gen.length(6);
        List<Object> list = new ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            list.add(value(depth));
        }
        return list;
    }

    /** An object of values nested at most {@code depth} deep; names are often the well-known Bayeux ones. */
    public Map<String, Object> object(int depth) {
        int length = gen.length(6);
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < length; i++) {
            map.put(name(), value(depth));
        }
        return map;
    }

    /**
     * A field name: often a well-known one. Never with a lone surrogate, which the codec refuses in names (not in
     * values) as not valid JSON.
     */
    public String name() {
        return gen.chance(0.5) ? gen.pick(NAMES) : gen.text(16);
    }

    public String string() {
        return gen.chance(0.3) ? gen.string("abc/*", 6) : gen.anyString(16);
    }

    /** A number of the type the codec decodes it to: int, long, big integer or finite double. */
    public Object number() {
        return switch (gen.between(0, 6)) {
            case 0 -> gen.pick(0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE);
            case 1 -> gen.random().nextInt();
            case 2 -> {
                long value = gen.random().nextLong();
                yield value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE ? (Object) (int) value : (Object) value;
            }
            case 3 -> BigInteger.ONE.shiftLeft(63).add(BigInteger.ONE).add(new BigInteger(gen.between(1, 60), gen.random()))
                    .multiply(BigInteger.valueOf(gen.chance(0.5) ? 1 : -1));
            case 4 -> gen.pick(0.0, -0.0, 0.5, -1.5, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, 1e-300);
            case 5 -> (gen.random().nextDouble() - 0.5) * Math.pow(10, gen.between(-20, 20));
            default -> {
                double value = Double.longBitsToDouble(gen.random().nextLong());
                yield Double.isFinite(value) ? value : 1.25;
            }
        };
    }

    /** {@code value} as JSON text, with whitespace and escapes chosen at random. */
    public String render(Object value) {
        StringBuilder out = new StringBuilder();
        render(value, out);
        return out.toString();
    }

    private void render(Object value, StringBuilder out) {
        space(out);
        if (value == null) {
            out.append("null");
        } else if (value instanceof String text) {
            string(text, out);
        } else if (value instanceof Double number) {
            decimal(number, out);
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                out.append(first ? "" : ",");
                first = false;
                space(out);
                string((String) entry.getKey(), out);
                space(out);
                out.append(':');
                render(entry.getValue(), out);
            }
            space(out);
            out.append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                out.append(i == 0 ? "" : ",");
                render(list.get(i), out);
            }
            space(out);
            out.append(']');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + value.getClass());
        }
        space(out);
    }

    private void space(StringBuilder out) {
        out.append(gen.pick(WHITESPACE));
    }

    private void decimal(Double number, StringBuilder out) {
        String text = Double.toString(number);
        if (text.contains("E")) {
            String exponent = gen.pick("E", "e");
            if (!text.contains("E-") && gen.chance(0.5)) {
                exponent += "+";
            }
            text = text.replace("E", exponent);
        }
        out.append(text);
    }

    /**
     * A JSON string: what must be escaped is, lone surrogates included, and anything else sometimes is. The two halves
     * of a surrogate pair are escaped together or not at all: one half alone in the text would be a lone surrogate.
     */
    private void string(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1));
            boolean must = c == '"' || c == '\\' || c < 0x20 || (Character.isSurrogate(c) && !pair);
            boolean escaped = must || gen.chance(0.1);
            if (escaped) {
                escape(c, out);
            } else {
                out.append(c);
            }
            if (pair) {
                char low = text.charAt(++i);
                if (escaped) {
                    escape(low, out);
                } else {
                    out.append(low);
                }
            }
        }
        out.append('"');
    }

    private void escape(char c, StringBuilder out) {
        String shortForm = switch (c) {
            case '"' -> "\\\"";
            case '\\' -> "\\\\";
            case '/' -> "\\/";
            case '\b' -> "\\b";
            case '\f' -> "\\f";
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            default -> null;
        };
        if (shortForm != null && gen.chance(0.7)) {
            out.append(shortForm);
        } else {
            out.append(String.format(gen.chance(0.5) ? "\\u%04x" : "\\u%04X", (int) c));
        }
    }
}
