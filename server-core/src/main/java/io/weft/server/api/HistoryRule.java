package io.weft.server.api;

import io.weft.bayeux.ChannelId;
import java.util.Locale;
import java.util.Objects;

/**
 * Which broadcast channels keep a history, and how much of it: the last {@code size} publications of each channel
 * matched by {@code pattern} (a channel, {@code /a/*} or {@code /a/**}), none older than {@code ttlMillis}, at most
 * {@code maxBytes} of encoded messages per channel. Given to {@link ServerOptions.Builder#history} or, as text, as the
 * {@code history} option: {@code /chat/**:size=1000,ttl=300s,bytes=1m}, several rules separated by {@code ;}, the
 * first that matches a channel deciding.
 *
 * <p>Every publication on a channel with history gets an offset (the channel's previous one plus one) in an epoch (a
 * name for the channel's stream, new whenever its history is lost); a client that subscribes again with the position
 * it had gets what it missed, or is told it cannot (docs/protocol.md, "History and recovery").
 */
public record HistoryRule(ChannelId pattern, int size, long ttlMillis, int maxBytes) {
    public static final int DEFAULT_SIZE = 1_000;
    public static final long DEFAULT_TTL_MILLIS = 300_000;
    public static final int DEFAULT_MAX_BYTES = 1 << 20;

    public HistoryRule {
        Objects.requireNonNull(pattern, "pattern");
        if (pattern.isMeta() || pattern.isService()) {
            throw new IllegalArgumentException("history is for broadcast channels, not " + pattern);
        }
        if (size < 1 || size > 1_000_000) {
            throw new IllegalArgumentException("history size must be within 1 and 1000000: " + size);
        }
        if (ttlMillis < 1_000) {
            throw new IllegalArgumentException("history ttl must be at least 1s: " + ttlMillis + " ms");
        }
        if (maxBytes < 1_024) {
            throw new IllegalArgumentException("history bytes must be at least 1k: " + maxBytes);
        }
    }

    /** Whether this rule covers {@code channel} (a concrete broadcast channel). */
    public boolean covers(ChannelId channel) {
        return pattern.isWild() ? pattern.matches(channel) : pattern.equals(channel);
    }

    /**
     * One rule from text: {@code /chat/**:size=1000,ttl=300s,bytes=1m}; each of {@code size}, {@code ttl} (in
     * {@code ms}, {@code s}, {@code m} or {@code h}; plain numbers are milliseconds) and {@code bytes} (plain, or with
     * {@code k} or {@code m}) may be left out for its default.
     *
     * @throws IllegalArgumentException saying what is wrong with {@code text}
     */
    public static HistoryRule parse(String text) {
        String rule = text.strip();
        int colon = rule.indexOf(':');
        String channel = colon < 0 ? rule : rule.substring(0, colon).strip();
        String problem = ChannelId.problem(channel);
        if (problem != null) {
            throw new IllegalArgumentException("history rule '" + text + "': " + problem);
        }
        int size = DEFAULT_SIZE;
        long ttl = DEFAULT_TTL_MILLIS;
        int bytes = DEFAULT_MAX_BYTES;
        if (colon >= 0) {
            for (String part : rule.substring(colon + 1).split(",")) {
                String item = part.strip();
                if (item.isEmpty()) {
                    continue;
                }
                int eq = item.indexOf('=');
                String key = eq < 0 ? item : item.substring(0, eq).strip();
                String value = eq < 0 ? "" : item.substring(eq + 1).strip().toLowerCase(Locale.ROOT);
                try {
                    switch (key) {
                        case "size" -> size = Integer.parseInt(value);
                        case "ttl" -> ttl = millis(value);
                        case "bytes" -> bytes = Math.toIntExact(bytes(value));
                        default -> throw new IllegalArgumentException("history rule '" + text + "': no setting '" + key
                                + "' (size, ttl, bytes)");
                    }
                } catch (NumberFormatException | ArithmeticException x) {
                    throw new IllegalArgumentException("history rule '" + text + "': '" + item + "' is not a number");
                }
            }
        }
        try {
            return new HistoryRule(ChannelId.of(channel), size, ttl, bytes);
        } catch (IllegalArgumentException x) {
            throw new IllegalArgumentException("history rule '" + text + "': " + x.getMessage());
        }
    }

    private static long millis(String value) {
        if (value.endsWith("ms")) {
            return Long.parseLong(value.substring(0, value.length() - 2));
        }
        long unit = switch (value.isEmpty() ? ' ' : value.charAt(value.length() - 1)) {
            case 's' -> 1_000L;
            case 'm' -> 60_000L;
            case 'h' -> 3_600_000L;
            default -> 1L;
        };
        String digits = unit == 1L ? value : value.substring(0, value.length() - 1);
        return Math.multiplyExact(Long.parseLong(digits), unit);
    }

    private static long bytes(String value) {
        long unit = switch (value.isEmpty() ? ' ' : value.charAt(value.length() - 1)) {
            case 'k' -> 1_024L;
            case 'm' -> 1_024L * 1_024L;
            default -> 1L;
        };
        String digits = unit == 1L ? value : value.substring(0, value.length() - 1);
        return Math.multiplyExact(Long.parseLong(digits), unit);
    }

    @Override
    public String toString() {
        return pattern + ":size=" + size + ",ttl=" + ttlMillis + "ms,bytes=" + maxBytes;
    }
}
