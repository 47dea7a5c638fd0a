package io.weft.cluster.redis;

import java.nio.charset.StandardCharsets;

/**
 * What crosses Redis for one publish: a short ASCII header naming the publishing node and the publish's number on that
 * node, then the message's JSON as the engine encoded it once: {@code "Xq3v_8RkTfA 1742\n[{...}]"}. A publish on a
 * channel with history also carries its position, which the history script wrote into the header:
 * {@code "Xq3v_8RkTfA 1743 kq2Lw0aZ9Xb1Y3cD 17\n[{...}]"} (epoch, then offset).
 *
 * <p>The node lets a node drop its own publishes when Redis sends them back (not those with a position: every node,
 * the publishing one included, delivers those when Redis sends them, so that all deliver a channel in offset order);
 * the number lets a node deliver each publish once although Redis sends one copy per matching subscription (a node
 * subscribed to {@code /a/b} and, through a pattern, to {@code /a/*} gets two), and once again a publish Redis ran
 * twice. Numbers grow by one per publish in the order the node sent them, and Redis keeps that order from one
 * connection to another, so a copy whose number is not above the last one delivered from its node is a copy.
 *
 * @param origin the publishing node's id
 * @param number the publish's number on its node
 * @param epoch the epoch of the channel's history the publish is in; null for a channel without history
 * @param offset the publish's offset in that epoch; 0 without history
 * @param jsonOffset where the JSON starts in the payload
 */
record Envelope(String origin, long number, String epoch, long offset, int jsonOffset) {
    /** The longest header read: an id, a number, an epoch and an offset, with room to spare. */
    private static final int MAX_HEADER = 160;
    /** The longest epoch read (History.Position takes up to 64 characters). */
    private static final int MAX_EPOCH = 64;

    /** A header without a position. */
    Envelope(String origin, long number, int jsonOffset) {
        this(origin, number, null, 0, jsonOffset);
    }

    /** The payload for publish {@code number} of the node whose id (ASCII, no space) is {@code origin}. */
    static byte[] wrap(byte[] originAndSpace, long number, byte[] json) {
        return wrap(originAndSpace, Long.toString(number), json);
    }

    /**
     * The payload for publish {@code number} of that node at {@code offset} of {@code epoch}: what the history script
     * publishes itself (it writes the same header), for the names a script cannot reach (sharded wildcard names).
     */
    static byte[] wrap(byte[] originAndSpace, long number, String epoch, long offset, byte[] json) {
        return wrap(originAndSpace, number + " " + epoch + " " + offset, json);
    }

    private static byte[] wrap(byte[] originAndSpace, String rest, byte[] json) {
        byte[] tail = rest.getBytes(StandardCharsets.US_ASCII);
        byte[] payload = new byte[originAndSpace.length + tail.length + 1 + json.length];
        System.arraycopy(originAndSpace, 0, payload, 0, originAndSpace.length);
        System.arraycopy(tail, 0, payload, originAndSpace.length, tail.length);
        int newline = originAndSpace.length + tail.length;
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
        int[] spaces = new int[3];
        int count = 0;
        for (int i = 0; i < limit; i++) {
            byte b = payload[i];
            if (b == ' ') {
                if (count == spaces.length) {
                    return null;
                }
                spaces[count++] = i;
            } else if (b == '\n') {
                return parsed(payload, spaces, count, i);
            }
        }
        return null;
    }

    private static Envelope parsed(byte[] payload, int[] spaces, int count, int newline) {
        if (count != 1 && count != 3) {
            return null;
        }
        int numberEnd = count == 1 ? newline : spaces[1];
        long number = number(payload, spaces[0] + 1, numberEnd);
        if (spaces[0] == 0 || number < 0) {
            return null;
        }
        String origin = new String(payload, 0, spaces[0], StandardCharsets.US_ASCII);
        if (count == 1) {
            return new Envelope(origin, number, newline + 1);
        }
        int epochLength = spaces[2] - spaces[1] - 1;
        long offset = number(payload, spaces[2] + 1, newline);
        if (epochLength < 1 || epochLength > MAX_EPOCH || offset < 1) {
            return null;
        }
        return new Envelope(origin, number, new String(payload, spaces[1] + 1, epochLength,
                StandardCharsets.US_ASCII), offset, newline + 1);
    }

    /** The decimal number in {@code payload[from, to)}; -1 if it is empty, not digits or too large. */
    private static long number(byte[] payload, int from, int to) {
        if (from >= to) {
            return -1;
        }
        long number = 0;
        for (int i = from; i < to; i++) {
            int digit = payload[i] - '0';
            if (digit < 0 || digit > 9 || number > (Long.MAX_VALUE - digit) / 10) {
                return -1;
            }
            number = number * 10 + digit;
        }
        return number;
    }
}
