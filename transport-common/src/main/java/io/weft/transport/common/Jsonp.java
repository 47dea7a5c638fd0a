package io.weft.transport.common;

import java.nio.charset.StandardCharsets;

/** The JSONP side of {@code callback-polling}: which callback names are accepted, and how a response is framed. */
final class Jsonp {
    static final int MAX_CALLBACK_LENGTH = 64;
    static final String CONTENT_TYPE = "text/javascript;charset=UTF-8";
    private static final byte[] LINE_SEPARATOR = "\\u2028".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PARAGRAPH_SEPARATOR = "\\u2029".getBytes(StandardCharsets.US_ASCII);

    private Jsonp() {
    }

    /** Whether {@code name} is 1 to 64 characters of {@code [A-Za-z0-9._-]}: a name, never script. */
    static boolean isValidCallback(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_CALLBACK_LENGTH) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code callback(json)}: the JSON array passed to the page's callback function, with U+2028 and U+2029 escaped.
     * JSON allows both raw inside strings, but script engines before ES2019 end a line at them, and a string literal
     * cannot span lines: the whole answer would fail to run. In UTF-8 they are E2 80 A8 and E2 80 A9, bytes that
     * occur nowhere else (and, in compact JSON, only inside strings), where the JSON escape
     * (a backslash, {@code u} and the four hex digits) means the same.
     */
    static byte[] wrap(String callback, byte[] json) {
        byte[] name = callback.getBytes(StandardCharsets.US_ASCII);
        int separators = separators(json);
        // Each separator grows from 3 bytes to 6 (backslash, u, 4 hex digits).
        byte[] body = new byte[name.length + json.length + 3 * separators + 2];
        System.arraycopy(name, 0, body, 0, name.length);
        body[name.length] = '(';
        if (separators == 0) {
            System.arraycopy(json, 0, body, name.length + 1, json.length);
        } else {
            copyEscaped(json, body, name.length + 1);
        }
        body[body.length - 1] = ')';
        return body;
    }

    private static int separators(byte[] json) {
        int count = 0;
        for (int i = 0; i + 2 < json.length; i++) {
            if (isSeparator(json, i)) {
                count++;
                i += 2;
            }
        }
        return count;
    }

    private static boolean isSeparator(byte[] json, int i) {
        return json[i] == (byte) 0xE2 && json[i + 1] == (byte) 0x80
                && (json[i + 2] == (byte) 0xA8 || json[i + 2] == (byte) 0xA9);
    }

    private static void copyEscaped(byte[] json, byte[] body, int at) {
        int i = 0;
        while (i < json.length) {
            if (i + 2 < json.length && isSeparator(json, i)) {
                byte[] escape = json[i + 2] == (byte) 0xA8 ? LINE_SEPARATOR : PARAGRAPH_SEPARATOR;
                System.arraycopy(escape, 0, body, at, escape.length);
                at += escape.length;
                i += 3;
            } else {
                body[at++] = json[i++];
            }
        }
    }
}
