package io.weft.transport.websocket;

import io.weft.server.api.ServerOptions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;

/**
 * The browser cookie on a WebSocket upgrade: read from the request's {@code Cookie} headers, and minted for the
 * upgrade response when the request carried none. Both mounts (core handler and Servlet container) use this, so they
 * agree on the rule the module README explains. Thread-safe.
 */
final class BrowserCookies {
    /** Longer values are not ours and are ignored, so a client cannot make the server keep large keys. */
    private static final int MAX_VALUE_LENGTH = 64;
    private static final int ID_BYTES = 18;

    private final ServerOptions.BrowserCookie options;
    private final SecureRandom random = new SecureRandom();

    BrowserCookies(ServerOptions.BrowserCookie options) {
        this.options = options;
    }

    /**
     * The value of the browser cookie in these {@code Cookie} header values, or null when it is absent or not a value
     * this server could have issued (empty, too long, or with characters outside base64url).
     */
    String read(List<String> cookieHeaders) {
        if (cookieHeaders == null) {
            return null;
        }
        for (String header : cookieHeaders) {
            String value = find(header);
            if (value != null) {
                return isPlausible(value) ? value : null;
            }
        }
        return null;
    }

    private String find(String header) {
        String name = options.name();
        int from = 0;
        while (from < header.length()) {
            int end = header.indexOf(';', from);
            if (end < 0) {
                end = header.length();
            }
            int eq = header.indexOf('=', from);
            if (eq > from && eq < end && header.substring(from, eq).trim().equals(name)) {
                String value = header.substring(eq + 1, end).trim();
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                    value = value.substring(1, value.length() - 1);
                }
                return value;
            }
            from = end + 1;
        }
        return null;
    }

    private static boolean isPlausible(String value) {
        if (value.isEmpty() || value.length() > MAX_VALUE_LENGTH) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
                    || c == '_';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** A fresh browser id: 144 random bits, base64url. */
    String newValue() {
        byte[] bytes = new byte[ID_BYTES];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The {@code Set-Cookie} header value that gives a browser {@code value}: a session cookie, always HttpOnly. */
    String setCookieHeader(String value) {
        StringBuilder header = new StringBuilder(96);
        header.append(options.name()).append('=').append(value);
        header.append("; Path=").append(options.path());
        header.append("; HttpOnly");
        if (options.secure()) {
            header.append("; Secure");
        }
        header.append("; SameSite=").append(options.sameSite());
        return header.toString();
    }
}
