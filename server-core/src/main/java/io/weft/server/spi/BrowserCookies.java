package io.weft.server.spi;

import io.weft.server.api.ServerOptions;
import java.util.List;

/**
 * The browser cookie ({@link ServerOptions#browserCookie()}, {@code BAYEUX_BROWSER} by default) for transports: read
 * from a request's {@code Cookie} headers, and minted for the response when the request carried none. Its value is
 * what the engine binds sessions to ({@link Connection#browserId()}); every transport uses this one class, so they
 * agree on what a browser id is. Thread-safe.
 */
public final class BrowserCookies {
    /** Longer values are not ours and are ignored, so a client cannot make the server keep large keys. */
    private static final int MAX_VALUE_LENGTH = 64;

    private final ServerOptions.BrowserCookie options;

    public BrowserCookies(ServerOptions.BrowserCookie options) {
        this.options = options;
    }

    /**
     * The value of the browser cookie in these {@code Cookie} header values, or null when it is absent or not a value
     * this server could have issued (empty, too long, or with characters outside base64url).
     */
    public String read(List<String> cookieHeaders) {
        if (cookieHeaders == null) {
            return null;
        }
        for (String header : cookieHeaders) {
            String value = valueIn(header, options.name());
            if (value != null) {
                return isPlausible(value) ? value : null;
            }
        }
        return null;
    }

    /** The value of the cookie {@code name} in one {@code Cookie} header ({@code a=1; b="2"}), unquoted, or null. */
    public static String valueIn(String header, String name) {
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

    /** A fresh browser id: 144 random bits, base64url ({@link RandomIds}). */
    public String newValue() {
        return RandomIds.next();
    }

    /**
     * The {@code Set-Cookie} header value that gives a browser {@code value}: a session cookie, always HttpOnly, Secure
     * where the options say so and on any response the client receives over HTTPS.
     */
    public String setCookieHeader(String value, boolean secureRequest) {
        StringBuilder header = new StringBuilder(96);
        header.append(options.name()).append('=').append(value);
        header.append("; Path=").append(options.path());
        header.append("; HttpOnly");
        if (options.secure() || secureRequest) {
            header.append("; Secure");
        }
        header.append("; SameSite=").append(options.sameSite());
        return header.toString();
    }
}
