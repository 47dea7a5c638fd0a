package io.weft.client;

import io.weft.bayeux.Codec;
import io.weft.bayeux.Message;
import io.weft.bayeux.MessageDecodeException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The client's messages and JSON: server-core's message type and codec, the same code the server runs, with the
 * client's stricter reading of what it receives (every element of a reply batch must be a message with a channel).
 * Thread-safe.
 */
final class Messages {
    private static final Codec CODEC = Codec.json();

    private Messages() {
    }

    /** A new message on {@code channel}. */
    static Message.Mutable of(String channel) {
        return Message.Mutable.create().setChannel(channel);
    }

    /** A new message with these fields. */
    static Message.Mutable of(Map<String, Object> fields) {
        Message.Mutable message = Message.Mutable.create();
        fields.forEach(message::put);
        return message;
    }

    static byte[] encode(List<? extends Message> batch) {
        return CODEC.encode(batch);
    }

    static String encodeText(List<? extends Message> batch) {
        return new String(CODEC.encode(batch), StandardCharsets.UTF_8);
    }

    /** Decodes a body: a JSON array of messages or one message. @throws IOException if it is not a Bayeux batch */
    static List<Message.Mutable> decode(byte[] json, int offset, int length) throws IOException {
        try {
            return checked(CODEC.decode(json, offset, length));
        } catch (MessageDecodeException x) {
            throw new IOException(x.getMessage());
        }
    }

    /** Decodes a frame. @throws IOException if it is not a Bayeux batch */
    static List<Message.Mutable> decode(String json) throws IOException {
        try {
            return checked(CODEC.decode(json));
        } catch (MessageDecodeException x) {
            throw new IOException(x.getMessage());
        }
    }

    private static List<Message.Mutable> checked(List<Message.Mutable> batch) throws IOException {
        for (Message message : batch) {
            if (message.getChannel() == null) {
                throw new IOException("not a Bayeux message (no channel): " + message);
            }
        }
        return batch;
    }
}
