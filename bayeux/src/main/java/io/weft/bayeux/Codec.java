package io.weft.bayeux;

import java.util.List;

/**
 * JSON in and out, for transports. Decoding is one pass over the input; encoding writes each frozen message's JSON,
 * computed once and shared by every recipient, into one array. Thread-safe.
 */
public interface Codec {
    /**
     * A new codec: the one the engine uses, for code that has no server at hand (a Bayeux client). Decoded messages
     * are {@link Message.Mutable}; an element of a batch that is not a well-formed message decodes to a message
     * whose fields are as sent (possibly without a channel).
     */
    static Codec json() {
        return new io.weft.bayeux.internal.JsonCodec();
    }

    /**
     * Decodes a request body or frame: a JSON array of messages, or a single message object.
     *
     * @return the messages in order; an element that is not a well-formed message is still returned, and the engine
     *     answers it with its own error reply
     * @throws MessageDecodeException if the input is not JSON, or not an array or object
     */
    List<Message.Mutable> decode(byte[] json, int offset, int length) throws MessageDecodeException;

    /** As {@link #decode(byte[], int, int)}, for text (a WebSocket frame, a JSONP parameter). */
    List<Message.Mutable> decode(String json) throws MessageDecodeException;

    /**
     * The messages as one JSON array, UTF-8. The array may be shared (a published message alone in a batch is encoded
     * once for all its recipients): do not modify it.
     */
    byte[] encode(List<? extends Message> messages);
}
