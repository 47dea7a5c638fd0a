package io.weft.load;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A reader of the Prometheus text exposition format (version 0.0.4, what {@code GET /metrics} answers): one sample a
 * line, {@code name{label="value",...} value [timestamp]}, blanks allowed between the parts; {@code #} lines
 * ({@code HELP}, {@code TYPE}) and blank lines are skipped. Label values may hold the format's escapes
 * ({@code \\}, {@code \"}, {@code \n}) and any other character, commas and braces included. Values are Go-style
 * floats ({@code 1.5E7}, {@code NaN}, {@code +Inf}). Stateless; safe from any thread.
 */
final class PrometheusText {
    /** One sample: a metric's name, its labels in the order written, and its value. */
    record Sample(String name, Map<String, String> labels, double value) {
        Sample {
            labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
        }

        /** Whether every label of {@code match} has the same value here. */
        boolean matches(Map<String, String> match) {
            for (Map.Entry<String, String> wanted : match.entrySet()) {
                if (!wanted.getValue().equals(labels.get(wanted.getKey()))) {
                    return false;
                }
            }
            return true;
        }
    }

    private PrometheusText() {
    }

    /**
     * Every sample of {@code text}, in order.
     *
     * @throws IllegalArgumentException naming the line, when a line is not a sample
     */
    static List<Sample> parse(String text) {
        List<Sample> samples = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                samples.add(sample(line));
            } catch (RuntimeException x) {
                throw new IllegalArgumentException("line " + (i + 1) + ": " + x.getMessage() + ": " + line, x);
            }
        }
        return samples;
    }

    private static Sample sample(String line) {
        int at = 0;
        while (at < line.length() && isNameChar(line.charAt(at), at == 0)) {
            at++;
        }
        if (at == 0) {
            throw new IllegalArgumentException("no metric name");
        }
        String name = line.substring(0, at);
        Map<String, String> labels = new LinkedHashMap<>();
        at = skipBlanks(line, at);
        if (at < line.length() && line.charAt(at) == '{') {
            at = labels(line, at + 1, labels);
        }
        String[] rest = line.substring(at).strip().split("[ \t]+");
        if (rest.length == 0 || rest[0].isEmpty() || rest.length > 2) {
            throw new IllegalArgumentException("expected a value and an optional timestamp");
        }
        return new Sample(name, labels, value(rest[0]));
    }

    /** Reads {@code label="value",...}} from just after the brace; returns the index after the closing brace. */
    private static int labels(String line, int at, Map<String, String> labels) {
        while (true) {
            at = skipBlanks(line, at);
            if (at < line.length() && line.charAt(at) == '}') {
                return at + 1;
            }
            int start = at;
            while (at < line.length() && isNameChar(line.charAt(at), at == start) && line.charAt(at) != ':') {
                at++;
            }
            if (at == start) {
                throw new IllegalArgumentException("expected a label name at column " + (at + 1));
            }
            String label = line.substring(start, at);
            at = skipBlanks(line, at);
            int quote = skipBlanks(line, at + 1);
            if (at >= line.length() || line.charAt(at) != '=' || quote >= line.length() || line.charAt(quote) != '"') {
                throw new IllegalArgumentException("expected =\"...\" after label " + label);
            }
            at = quote + 1;
            StringBuilder value = new StringBuilder();
            while (true) {
                if (at >= line.length()) {
                    throw new IllegalArgumentException("unterminated value of label " + label);
                }
                char c = line.charAt(at++);
                if (c == '"') {
                    break;
                }
                if (c == '\\' && at < line.length()) {
                    char escaped = line.charAt(at++);
                    value.append(escaped == 'n' ? '\n' : escaped); // \\ and \" stand for themselves
                } else {
                    value.append(c);
                }
            }
            labels.put(label, value.toString());
            at = skipBlanks(line, at);
            if (at < line.length() && line.charAt(at) == ',') {
                at++; // a trailing comma before the brace is allowed
            } else if (at >= line.length() || line.charAt(at) != '}') {
                throw new IllegalArgumentException("expected , or } after the value of label " + label);
            }
        }
    }

    static double value(String text) {
        return switch (text) {
            case "NaN" -> Double.NaN;
            case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(text);
        };
    }

    private static int skipBlanks(String line, int at) {
        while (at < line.length() && (line.charAt(at) == ' ' || line.charAt(at) == '\t')) {
            at++;
        }
        return at;
    }

    private static boolean isNameChar(char c, boolean first) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || !first && c >= '0' && c <= '9';
    }
}
