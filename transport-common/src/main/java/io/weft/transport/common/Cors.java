package io.weft.transport.common;

import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Origins;

/**
 * Cross-origin requests, as {@link Origins#check} judges them under {@link ServerOptions#allowedOrigins()} (the rule
 * websocket upgrades follow too): same-origin requests and requests without an {@code Origin} pass untouched; a
 * foreign origin listed by name gets the CORS headers with credentials (so the browser cookie travels); any foreign
 * origin, when {@code *} is allowed, gets them without credentials; any other foreign origin is refused with 403.
 *
 * <p>Why {@code *} carries no credentials: with them, any site a user visits could make requests with that user's
 * cookies (the application's login among them) and read the answers. The official CometD JavaScript client always
 * asks for credentials on long-polling ({@code withCredentials = true}), which browsers refuse without
 * {@code Access-Control-Allow-Credentials}: list its origins by name.
 */
final class Cors {
    static final String ALLOWED_METHODS = "GET, POST, OPTIONS";
    /** How long a browser may cache a preflight answer, in seconds. */
    static final String MAX_AGE = "86400";

    private final ServerOptions options;

    Cors(ServerOptions options) {
        this.options = options;
    }

    /**
     * Adds the CORS response headers this request needs.
     *
     * @return false if the request comes from a foreign origin that is not allowed
     */
    boolean admit(HttpExchange exchange) {
        String origin = exchange.header("Origin");
        Origins.Verdict verdict = Origins.check(origin, exchange::serverOrigin, options);
        if (verdict == Origins.Verdict.REFUSED) {
            return false;
        }
        if (verdict == Origins.Verdict.SAME_ORIGIN) {
            return true;
        }
        // The origin echoed, not "*": the answer differs per origin either way (Vary), and an echo is what a
        // listed origin needs.
        exchange.addHeader("Access-Control-Allow-Origin", origin);
        if (verdict == Origins.Verdict.ALLOWED_WITH_CREDENTIALS) {
            exchange.addHeader("Access-Control-Allow-Credentials", "true");
        }
        exchange.addHeader("Vary", "Origin");
        return true;
    }

    /** Adds the preflight headers, once {@link #admit} has let the request through. */
    void preflight(HttpExchange exchange) {
        exchange.addHeader("Access-Control-Allow-Methods", ALLOWED_METHODS);
        String requested = exchange.header("Access-Control-Request-Headers");
        if (requested != null && !requested.isBlank()) {
            exchange.addHeader("Access-Control-Allow-Headers", requested);
        }
        exchange.addHeader("Access-Control-Max-Age", MAX_AGE);
    }
}
