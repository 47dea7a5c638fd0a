package io.weft.cluster.redis;

import java.nio.charset.StandardCharsets;

/**
 * What crosses Redis for one publish: a short ASCII header naming the publishing node and the publish's number on that
 * node, then the message's JSON as the engine encoded it once: {@code "Xq3v_8RkTfA 1742\n[{...}]"}.
 *
 * <p>The node lets a node drop its own publishes when Redis sends them back; the number lets a node deliver each
 * publish once although Redis sends one copy per matching subscription (a node subscribed to {@code /a/b} and, through
 * a pattern, to {@code /a/*} gets two), and once again a publish Redis ran twice. Numbers grow by one per publish in
 * the order the node sent them, and Redis keeps that order from one connection to another, so a copy whose number is
 * not above the last one delivered from its node is a copy.
 *
 * @param origin the publishing node's id
 * @param number the publish's number on its node
 * @param jsonOffset where the JSON starts in the payload
 */
record Envelope(String origin, long number, int jsonOffset) {
    /** The longest header read: an id and a number, with room to spare. */
    private static final int MAX_HEADER = 64;

    /** The payload for publish {@code number} of the node whose id (ASCII, no space) is {@code origin}. */
    static byte[] wrap(byte[] originAndSpace, long number, byte[] json) {
        byte[] digits = Long.toString(number).getBytes(StandardCharsets.US_ASCII);
        byte[] payload = new byte[originAndSpace.length + digits.length + 1 + json.length];
        System.arraycopy(originAndSpace, 0, payload, 0, originAndSpace.length);
        System.arraycopy(digits, 0, payload, originAndSpace.length, digits.length);
        int newline = originAndSpace.length + digits.length;
        payload[newline] = '\n';
        System.arraycopy(json, 0, payload, newline + 1, json.length);
        return payload;
    }

    /** The bytes {@link #wrap} starts each payload of {@code origin} with. */
    static byte[] prefix(String origin) {
        return (origin + ' ').getBytes(StandardCharsets.US_ASCII);
    }

    /** The header of {@code payload}, or null if it has none (not something a Weft node published). */
    static Envelope read(byte[] payload) {
        int limit = Math.min(payload.length, MAX_HEADER);
        int space = -1;
        for (int i = 0; i < limit; i++) {
            byte b = payload[i];
            if (b == ' ' && space < 0) {
                space = i;
            } else if (b == '\n') {
                return space > 0 && i > space + 1 ? parsed(payload, space, i) : null;
            }
        }
        return null;
    }

    private static Envelope parsed(byte[] payload, int space, int newline) {
        long number = 0;
        for (int i = space + 1; i < newline; i++) {
            int digit = payload[i] - '0';
            if (digit < 0 || digit > 9 || number > (Long.MAX_VALUE - digit) / 10) {
                return null;
            }
            number = number * 10 + digit;
        }
        return new Envelope(new String(payload, 0, space, StandardCharsets.US_ASCII), number, newline + 1);
    }
}
