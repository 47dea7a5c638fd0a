package io.weft.server.spi;

import io.weft.server.api.ServerOptions;
import java.util.function.Supplier;

/**
 * Which pages may talk to this server, for every transport alike: the server's own origin as a browser names it in
 * {@code Origin}, and what a request's {@code Origin} amounts to under {@link ServerOptions#allowedOrigins()}.
 * Long-polling turns the verdict into CORS headers or a 403; websocket refuses an upgrade from a page that is not
 * allowed (a page of another site must not open sockets with this browser's cookie).
 */
public final class Origins {
    /** What a request's {@code Origin} amounts to. */
    public enum Verdict {
        /** No {@code Origin} (a program, not a page), or this server's own: not a cross-origin request. */
        SAME_ORIGIN,
        /** A foreign origin listed by name: allowed, with credentials (the browser cookie travels). */
        ALLOWED_WITH_CREDENTIALS,
        /**
         * A foreign origin allowed only because {@code *} is listed: allowed without credentials, or any site a user
         * visits could make requests with that user's cookies and read the answers.
         */
        ALLOWED_WITHOUT_CREDENTIALS,
        /** A foreign origin that is not allowed. */
        REFUSED;

        /** Whether the request may go on. */
        public boolean allowed() {
            return this != REFUSED;
        }
    }

    private Origins() {
    }

    /**
     * The origin a browser names in {@code Origin} for a server reached at {@code scheme://host:port}: the port left
     * out where it is the scheme's default (or unknown, 0 or less), an IPv6 host in brackets. Scheme and host as the
     * request gave them (behind a trusted proxy, the forwarded ones).
     */
    public static String of(String scheme, String host, int port) {
        String name = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
        boolean defaultPort = port <= 0 || ("http".equalsIgnoreCase(scheme) && port == 80)
                || ("https".equalsIgnoreCase(scheme) && port == 443);
        return scheme + "://" + name + (defaultPort ? "" : ":" + port);
    }

    /**
     * What {@code origin} amounts to for a request that reached this server at {@code serverOrigin} (asked only when
     * the request has an {@code Origin}; compared without regard to case).
     *
     * @param origin the request's {@code Origin} header, or null
     */
    public static Verdict check(String origin, Supplier<String> serverOrigin, ServerOptions options) {
        if (origin == null || origin.equalsIgnoreCase(serverOrigin.get())) {
            return Verdict.SAME_ORIGIN;
        }
        if (options.allowedOrigins().contains(origin)) {
            return Verdict.ALLOWED_WITH_CREDENTIALS;
        }
        return options.isOriginAllowed(origin) ? Verdict.ALLOWED_WITHOUT_CREDENTIALS : Verdict.REFUSED;
    }
}
