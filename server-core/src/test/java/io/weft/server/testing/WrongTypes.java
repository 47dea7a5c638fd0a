package io.weft.server.testing;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.Message;
import java.util.List;

/**
 * The Bayeux fields the engine reads, and values of a JSON type each must not have: a message carrying one is
 * answered with an error reply of its own ({@code 405::channel_invalid} for a channel, {@code 400::message_invalid}
 * otherwise).
 */
public final class WrongTypes {
    public static final List<String> FIELDS = List.of(Message.CHANNEL, Message.ID, Message.CLIENT_ID,
            Message.CONNECTION_TYPE, Message.EXT, Message.ADVICE, Message.SUBSCRIPTION,
            Message.SUPPORTED_CONNECTION_TYPES);

    private WrongTypes() {
    }

    /** A value {@code field} must not have; never null, which counts as absent. */
    public static Object valueFor(String field, Gen gen, JsonGen json) {
        while (true) {
            Object value = json.value(2);
            if (value != null && !allowed(field, value)) {
                return value;
            }
        }
    }

    private static boolean allowed(String field, Object value) {
        return switch (field) {
            case Message.ID -> value instanceof String || value instanceof Number;
            case Message.EXT, Message.ADVICE -> value instanceof java.util.Map;
            case Message.SUBSCRIPTION -> value instanceof String || value instanceof List;
            case Message.SUPPORTED_CONNECTION_TYPES -> value instanceof List;
            default -> value instanceof String;
        };
    }

    /** The error a message with {@code field} of the wrong type is answered with. */
    public static BayeuxError errorFor(String field) {
        return Message.CHANNEL.equals(field) ? BayeuxError.CHANNEL_INVALID : BayeuxError.MESSAGE_INVALID;
    }
}
