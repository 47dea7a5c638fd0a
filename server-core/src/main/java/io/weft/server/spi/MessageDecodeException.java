package io.weft.server.spi;

import io.weft.server.api.Limit;

/**
 * A request body or frame that is not a Bayeux batch at all: not JSON, truncated JSON, or JSON that is neither an
 * array nor an object. Transports answer it with HTTP 400 (or a WebSocket close) carrying {@link #getMessage()}, a
 * one-line reason safe to show the client. Malformed messages inside a well-formed batch are not this exception:
 * each gets its own Bayeux error reply.
 */
public final class MessageDecodeException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient Limit limit;

    public MessageDecodeException(String reason) {
        this(reason, null);
    }

    /** @param limit the limit the input went past, or null when it is simply malformed */
    public MessageDecodeException(String reason, Limit limit) {
        super(reason, null, false, false);
        this.limit = limit;
    }

    /**
     * The limit the input went past ({@code maxMessagesPerBatch}, {@code maxJsonDepth}), already counted by the
     * engine's codec; null when the input is malformed. Transports answer a limit with 413 or a 1009 close.
     */
    public Limit limit() {
        return limit;
    }
}
