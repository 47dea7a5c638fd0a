package io.weft.transport.common;

import java.nio.charset.StandardCharsets;

/** The JSONP side of {@code callback-polling}: which callback names are accepted, and how a response is framed. */
final class Jsonp {
    static final int MAX_CALLBACK_LENGTH = 64;
    static final String CONTENT_TYPE = "text/javascript;charset=UTF-8";

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

    /** {@code callback(json)}: the JSON array passed to the page's callback function. */
    static byte[] wrap(String callback, byte[] json) {
        byte[] name = callback.getBytes(StandardCharsets.US_ASCII);
        byte[] body = new byte[name.length + json.length + 2];
        System.arraycopy(name, 0, body, 0, name.length);
        body[name.length] = '(';
        System.arraycopy(json, 0, body, name.length + 1, json.length);
        body[body.length - 1] = ')';
        return body;
    }
}
