package io.weft.server.spi;

import java.security.SecureRandom;
import java.util.Base64;

/**
 * Unguessable ids for values a client is handed and must present back, such as the browser cookie: 144 bits from one
 * {@link SecureRandom}, in base64url without padding, so they go into cookies, JSON and URLs unescaped. Thread-safe.
 */
public final class RandomIds {
    /** How many characters every id has: 18 random bytes in base64url. */
    public static final int LENGTH = 24;

    private static final int BYTES = 18;
    private static final SecureRandom RANDOM = new SecureRandom();

    private RandomIds() {
    }

    /** A fresh id of {@link #LENGTH} characters from {@code [A-Za-z0-9_-]}. */
    public static String next() {
        byte[] bytes = new byte[BYTES];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
