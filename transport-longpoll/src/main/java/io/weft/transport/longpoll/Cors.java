package io.weft.transport.longpoll;

import io.weft.server.api.ServerOptions;

/**
 * Cross-origin requests, per {@link ServerOptions#allowedOrigins()}: same-origin requests and requests without an
 * {@code Origin} pass untouched; an allowed foreign origin gets the CORS headers (with credentials, so the browser
 * cookie travels); any other foreign origin is refused with 403.
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
        if (origin == null || origin.equalsIgnoreCase(exchange.serverOrigin())) {
            return true;
        }
        if (!options.isOriginAllowed(origin)) {
            return false;
        }
        exchange.addHeader("Access-Control-Allow-Origin", origin);
        exchange.addHeader("Access-Control-Allow-Credentials", "true");
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
