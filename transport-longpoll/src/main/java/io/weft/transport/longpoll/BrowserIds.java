package io.weft.transport.longpoll;

import io.weft.server.api.ServerOptions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;

/**
 * The browser cookie ({@code BAYEUX_BROWSER} by default): found in a request's {@code Cookie} headers, or made up for
 * a browser that has none and set on the response. Its value is what the engine binds sessions to. Thread-safe.
 */
final class BrowserIds {
    /** 144 random bits, 24 URL-safe characters. */
    private static final int ID_BYTES = 18;
    /** A value longer than any id this class makes is not one of ours. */
    private static final int MAX_ID_LENGTH = 64;

    private final ServerOptions.BrowserCookie cookie;
    private final String attributes;
    private final SecureRandom random = new SecureRandom();

    BrowserIds(ServerOptions.BrowserCookie cookie) {
        this.cookie = cookie;
        this.attributes = "; Path=" + cookie.path() + "; HttpOnly; SameSite=" + cookie.sameSite()
                + (cookie.secure() ? "; Secure" : "");
    }

    /**
     * The browser id in these {@code Cookie} header values, or null if there is none (or it is not a well-formed
     * id, which is then replaced).
     */
    String find(List<String> cookieHeaders) {
        String name = cookie.name();
        for (String header : cookieHeaders) {
            int start = 0;
            while (start < header.length()) {
                int end = header.indexOf(';', start);
                if (end < 0) {
                    end = header.length();
                }
                int equals = header.indexOf('=', start);
                if (equals > 0 && equals < end && header.substring(start, equals).trim().equals(name)) {
                    String value = unquote(header.substring(equals + 1, end).trim());
                    return isWellFormed(value) ? value : null;
                }
                start = end + 1;
            }
        }
        return null;
    }

    /** A new, unguessable browser id. */
    String create() {
        byte[] bytes = new byte[ID_BYTES];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The {@code Set-Cookie} header value that gives a browser {@code id}. */
    String setCookie(String id) {
        return cookie.name() + "=" + id + attributes;
    }

    private static String unquote(String value) {
        return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
                ? value.substring(1, value.length() - 1) : value;
    }

    private static boolean isWellFormed(String value) {
        if (value.isEmpty() || value.length() > MAX_ID_LENGTH) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
