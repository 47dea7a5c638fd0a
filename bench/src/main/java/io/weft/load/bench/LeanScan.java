package io.weft.load.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** What the lean clients ({@link LeanSockets}, {@link LeanPolls}) share: finding arrivals and fields, and writing. */
final class LeanScan {
    private static final byte[] T_FIELD = "\"t\":".getBytes(StandardCharsets.US_ASCII);

    private LeanScan() {
    }

    /**
     * Reports every chat message in {@code bytes[start, end)}, found by its {@code "t":} field (its intended send
     * time) rather than by decoding the JSON, and tells whether {@code flag} (a quoted string such as
     * {@code "/meta/connect"}) occurs there too.
     */
    static boolean arrivals(byte[] bytes, int start, int end, long now, ChatLoad.Arrivals arrivals, byte[] flag) {
        boolean flagged = false;
        for (int i = start; i < end; i++) {
            if (bytes[i] != '"') {
                continue;
            }
            if (matches(bytes, i, end, T_FIELD)) {
                int j = i + T_FIELD.length;
                long t = 0;
                boolean digits = false;
                while (j < end && bytes[j] >= '0' && bytes[j] <= '9') {
                    t = t * 10 + (bytes[j] - '0');
                    j++;
                    digits = true;
                }
                if (digits) {
                    arrivals.arrived(t, now);
                }
                i = j - 1;
            } else if (!flagged && matches(bytes, i, end, flag)) {
                flagged = true;
            }
        }
        return flagged;
    }

    /** The value of the string field {@code name} in a setup reply ({@code "name":"value"}), or null. */
    static String field(String json, String name) {
        int at = json.indexOf("\"" + name + "\":\"");
        if (at < 0) {
            return null;
        }
        int start = at + name.length() + 4;
        int end = json.indexOf('"', start);
        return end < 0 ? null : json.substring(start, end);
    }

    static boolean matches(byte[] bytes, int at, int end, byte[] what) {
        if (end - at < what.length) {
            return false;
        }
        for (int k = 0; k < what.length; k++) {
            if (bytes[at + k] != what[k]) {
                return false;
            }
        }
        return true;
    }

    /** Writes all of {@code buffer} to a socket, blocking or not (loopback: a full socket buffer drains quickly). */
    static void writeFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (buffer.hasRemaining()) {
            if (channel.write(buffer) == 0) {
                if (System.nanoTime() > giveUp) {
                    throw new IOException("lean client: the server has not read for 10 s");
                }
                Thread.onSpinWait();
            }
        }
    }
}
