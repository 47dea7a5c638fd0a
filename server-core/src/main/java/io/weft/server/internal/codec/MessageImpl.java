package io.weft.server.internal.codec;

import io.weft.server.api.BayeuxError;
import io.weft.server.api.ChannelId;
import io.weft.server.api.Message;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The one {@link Message} implementation: fields in insertion order, the channel parsed once, and, once frozen, the
 * JSON encoding computed once and shared by every recipient.
 */
public final class MessageImpl implements Message.Mutable {
    private final LinkedHashMap<String, Object> fields;
    private ChannelId channelId;
    private boolean channelParsed;
    private BayeuxError decodeError;
    private Message associated;
    private volatile boolean frozen;
    private volatile byte[] json;

    public MessageImpl() {
        this.fields = new LinkedHashMap<>(8);
    }

    private MessageImpl(LinkedHashMap<String, Object> fields) {
        this.fields = fields;
    }

    /** A mutable copy: the fields are copied one level deep; {@code ext} and {@code advice} are copied too. */
    public MessageImpl copy() {
        MessageImpl copy = new MessageImpl(new LinkedHashMap<>(fields));
        copy.fields.computeIfPresent(EXT, (k, v) -> v instanceof Map<?, ?> map ? new LinkedHashMap<>(map) : v);
        copy.fields.computeIfPresent(ADVICE, (k, v) -> v instanceof Map<?, ?> map ? new LinkedHashMap<>(map) : v);
        return copy;
    }

    /** Makes this message read-only; from now on it may be shared between sessions and threads. */
    public MessageImpl freeze() {
        frozen = true;
        return this;
    }

    public boolean isFrozen() {
        return frozen;
    }

    /** Set by the decoder when this batch element was malformed: the engine answers it with this error. */
    public BayeuxError decodeError() {
        return decodeError;
    }

    void decodeError(BayeuxError error) {
        this.decodeError = error;
    }

    /**
     * This message's JSON, UTF-8. For a frozen message, computed once (the first caller encodes, others wait for it)
     * and shared; do not modify the returned array.
     */
    public byte[] json(JsonCodec codec) {
        if (!frozen) {
            return codec.encodeOne(this);
        }
        byte[] result = json;
        if (result == null) {
            synchronized (this) {
                result = json;
                if (result == null) {
                    result = codec.encodeOne(this);
                    json = result;
                }
            }
        }
        return result;
    }

    private void checkMutable() {
        if (frozen) {
            throw new IllegalStateException("message on " + getChannel() + " is frozen: it has been published");
        }
    }

    @Override
    public String getChannel() {
        return fields.get(CHANNEL) instanceof String channel ? channel : null;
    }

    @Override
    public ChannelId getChannelId() {
        if (!channelParsed) {
            String channel = getChannel();
            channelId = channel == null ? null : KnownValues.channelId(channel);
            channelParsed = true;
        }
        return channelId;
    }

    @Override
    public String getId() {
        Object id = fields.get(ID);
        return id == null ? null : id.toString();
    }

    @Override
    public String getClientId() {
        return fields.get(CLIENT_ID) instanceof String clientId ? clientId : null;
    }

    @Override
    public Object getData() {
        return fields.get(DATA);
    }

    @Override
    public Map<String, Object> getDataAsMap() {
        return objectField(DATA);
    }

    @Override
    public Map<String, Object> getExt() {
        return objectField(EXT);
    }

    @Override
    public Map<String, Object> getAdvice() {
        return objectField(ADVICE);
    }

    /** An object field; read-only once frozen, since a frozen message is shared by every recipient. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> objectField(String field) {
        if (fields.get(field) instanceof Map<?, ?> map) {
            Map<String, Object> typed = (Map<String, Object>) map;
            return frozen ? Collections.unmodifiableMap(typed) : typed;
        }
        return null;
    }

    @Override
    public boolean isSuccessful() {
        return Boolean.TRUE.equals(fields.get(SUCCESSFUL));
    }

    @Override
    public Object get(String field) {
        return fields.get(field);
    }

    @Override
    public boolean containsKey(String field) {
        return fields.containsKey(field);
    }

    @Override
    public Set<String> fieldNames() {
        return Collections.unmodifiableSet(fields.keySet());
    }

    @Override
    public Map<String, Object> asMap() {
        return Collections.unmodifiableMap(fields);
    }

    @Override
    public String toJson() {
        return new String(json(JsonCodec.shared()), StandardCharsets.UTF_8);
    }

    @Override
    public Mutable setChannel(String channel) {
        return put(CHANNEL, channel);
    }

    @Override
    public Mutable setId(String id) {
        return put(ID, id);
    }

    @Override
    public Mutable setClientId(String clientId) {
        return put(CLIENT_ID, clientId);
    }

    @Override
    public Mutable setData(Object data) {
        return put(DATA, data);
    }

    @Override
    public Mutable setSuccessful(boolean successful) {
        return put(SUCCESSFUL, successful);
    }

    @Override
    public Mutable put(String field, Object value) {
        checkMutable();
        if (CHANNEL.equals(field)) {
            channelParsed = false;
        }
        if (value == null) {
            fields.remove(field);
        } else {
            fields.put(field, value);
        }
        return this;
    }

    @Override
    public Object remove(String field) {
        checkMutable();
        if (CHANNEL.equals(field)) {
            channelParsed = false;
        }
        return fields.remove(field);
    }

    @Override
    public Map<String, Object> getExt(boolean create) {
        return getObject(EXT, create);
    }

    @Override
    public Map<String, Object> getAdvice(boolean create) {
        return getObject(ADVICE, create);
    }

    private Map<String, Object> getObject(String field, boolean create) {
        Map<String, Object> existing = objectField(field);
        if (existing != null || !create) {
            return existing;
        }
        checkMutable();
        Map<String, Object> created = new LinkedHashMap<>(4);
        fields.put(field, created);
        return created;
    }

    @Override
    public Message getAssociated() {
        return associated;
    }

    @Override
    public Mutable setAssociated(Message request) {
        this.associated = request;
        return this;
    }

    /** The raw field map, for the codec. */
    Map<String, Object> fields() {
        return fields;
    }

    @Override
    public String toString() {
        return fields.toString();
    }
}
