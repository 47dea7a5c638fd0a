package io.weft.bayeux;

/**
 * A request body or frame that is not a Bayeux batch at all: not JSON, truncated JSON, or JSON that is neither an
 * array nor an object. Transports answer it with HTTP 400 (or a WebSocket close) carrying {@link #getMessage()}, a
 * one-line reason safe to show the client. Malformed messages inside a well-formed batch are not this exception:
 * each gets its own Bayeux error reply.
 */
public final class MessageDecodeException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The bounds a codec enforces while it reads, before anything past them is parsed. */
    public enum Bound {
        /** JSON nested deeper than the codec allows (a server's {@code maxJsonDepth}). */
        JSON_DEPTH,
        /** A batch of more messages than the codec allows (a server's {@code maxMessagesPerBatch}). */
        MESSAGES_PER_BATCH
    }

    private final Bound bound;

    public MessageDecodeException(String reason) {
        this(reason, null);
    }

    /** @param bound the bound the input went past, or null when it is simply malformed */
    public MessageDecodeException(String reason, Bound bound) {
        super(reason, null, false, false);
        this.bound = bound;
    }

    /**
     * The bound the input went past, already counted by a server's codec; null when the input is malformed. Transports
     * answer a bound with HTTP 413 or a 1009 close.
     */
    public Bound bound() {
        return bound;
    }
}
