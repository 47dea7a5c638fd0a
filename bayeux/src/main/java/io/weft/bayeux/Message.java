package io.weft.bayeux;

import java.util.Map;
import java.util.Set;

/**
 * A Bayeux message: a JSON object with well-known fields ({@code channel}, {@code id}, {@code clientId},
 * {@code data}, {@code ext}, {@code advice}, {@code successful}, {@code error}, …) and any others a client sends.
 *
 * <p>A {@code Message} is a read-only view. Values are the ones JSON decodes to: {@link String}, {@link Number},
 * {@link Boolean}, {@code null}, {@link java.util.List} and {@link Map} with {@code String} keys. A message that has
 * been published is frozen: the same instance is queued for every subscriber and encoded to JSON once. Code that may
 * change a message (extensions, channel listeners) gets a {@link Mutable} view before it is frozen.
 *
 * <p>Messages may be read from any thread.
 */
public interface Message {
    String CHANNEL = "channel";
    String ID = "id";
    String CLIENT_ID = "clientId";
    String DATA = "data";
    String EXT = "ext";
    String ADVICE = "advice";
    String SUCCESSFUL = "successful";
    String ERROR = "error";
    String SUBSCRIPTION = "subscription";
    String VERSION = "version";
    String MINIMUM_VERSION = "minimumVersion";
    String SUPPORTED_CONNECTION_TYPES = "supportedConnectionTypes";
    String CONNECTION_TYPE = "connectionType";
    String TIMESTAMP = "timestamp";

    /** The meta channels Bayeux defines. */
    String META_HANDSHAKE = "/meta/handshake";
    String META_CONNECT = "/meta/connect";
    String META_SUBSCRIBE = "/meta/subscribe";
    String META_UNSUBSCRIBE = "/meta/unsubscribe";
    String META_DISCONNECT = "/meta/disconnect";

    /** The {@code channel} field, or null if absent. */
    String getChannel();

    /** The channel parsed, or null if the {@code channel} field is absent or not a valid channel name. */
    ChannelId getChannelId();

    /** The {@code id} field, as a string, or null. */
    String getId();

    /** The {@code clientId} field, or null. */
    String getClientId();

    /** The {@code data} field, or null. */
    Object getData();

    /** The {@code data} field if it is a JSON object, else null. */
    Map<String, Object> getDataAsMap();

    /** The {@code ext} object, or null. */
    Map<String, Object> getExt();

    /** The {@code advice} object, or null. */
    Map<String, Object> getAdvice();

    /** Whether {@code successful} is {@code true}. */
    boolean isSuccessful();

    /** Whether this message's channel starts with {@code /meta/}. */
    default boolean isMeta() {
        ChannelId channel = getChannelId();
        return channel != null && channel.isMeta();
    }

    /**
     * For a reply, the request it answers (an outgoing extension reads the request's {@code ext} there); null for
     * other messages.
     */
    Message getAssociated();

    /** Any field by name, or null. */
    Object get(String field);

    boolean containsKey(String field);

    /** The names of the fields present, in the order they will be encoded. */
    Set<String> fieldNames();

    /** A read-only map view of every field. */
    Map<String, Object> asMap();

    /**
     * The JSON object this message encodes to. For a frozen message this is computed once and shared by every
     * recipient.
     */
    String toJson();

    /**
     * A message whose fields may be changed: what incoming extensions and channel listeners see before a message is
     * published. Not thread-safe; a mutable message belongs to the code handling it until it is frozen.
     */
    interface Mutable extends Message {
        /** A new, empty message: for clients, tests and server code building messages by hand. */
        static Mutable create() {
            return new io.weft.bayeux.internal.MessageImpl();
        }

        Mutable setChannel(String channel);

        Mutable setId(String id);

        Mutable setClientId(String clientId);

        Mutable setData(Object data);

        Mutable setSuccessful(boolean successful);

        /** Sets any field; {@code null} removes it. Values must be JSON values (see {@link Message}). */
        Mutable put(String field, Object value);

        Object remove(String field);

        /** Marks this message as the reply to {@code request} (see {@link #getAssociated()}). */
        Mutable setAssociated(Message request);

        /** The {@code ext} object, created empty if {@code create} and it is absent. */
        Map<String, Object> getExt(boolean create);

        /** The {@code advice} object, created empty if {@code create} and it is absent. */
        Map<String, Object> getAdvice(boolean create);
    }
}
