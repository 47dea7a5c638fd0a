package io.weft.server.spi;

/**
 * A request body or frame that is not a Bayeux batch at all: not JSON, truncated JSON, or JSON that is neither an
 * array nor an object. Transports answer it with HTTP 400 (or a WebSocket close) carrying {@link #getMessage()}, a
 * one-line reason safe to show the client. Malformed messages inside a well-formed batch are not this exception:
 * each gets its own Bayeux error reply.
 */
public final class MessageDecodeException extends Exception {
    private static final long serialVersionUID = 1L;

    public MessageDecodeException(String reason) {
        super(reason, null, false, false);
    }
}
