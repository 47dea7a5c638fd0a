package io.weft.bayeux.internal;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one {@link Message} implementation: fields in insertion order, the channel parsed once, and, once frozen, the
 * JSON encoding computed once and shared by every recipient.
 *
 * <p>A frozen message is shared by threads: every getter returns read-only views, nested values included. A
 * {@link #copy()} of it (what one recipient's outgoing extensions change) starts out sharing the nested values and
 * takes its own deep copy of a field the first time code reaches into it through the copy, so each recipient's view
 * is its own where an extension looks inside it, and nothing is copied where none does.
 */
public final class MessageImpl implements Message.Mutable {
    private final LinkedHashMap<String, Object> fields;
    private ChannelId channelId;
    private boolean channelParsed;
    private BayeuxError decodeError;
    private Message associated;
    private volatile boolean frozen;
    private long publishedAt;
    private volatile byte[] json;
    /** {@code [json]}, once asked for: the batch of this message alone, the same array for each of its recipients. */
    private volatile byte[] alone;
    /** Whether nested values may still be shared with the message this one was copied from. */
    private boolean sharesNested;
    /** The fields this copy owns (copied or set since), when it {@link #sharesNested}. */
    private Set<String> owned;

    public MessageImpl() {
        this.fields = new LinkedHashMap<>(8);
    }

    private MessageImpl(LinkedHashMap<String, Object> fields) {
        this.fields = fields;
    }

    /**
     * A mutable copy that shares this message's nested values until code reaches into one of them through the copy,
     * which then gets its own deep copy of that field.
     */
    public MessageImpl copy() {
        MessageImpl copy = new MessageImpl(new LinkedHashMap<>(fields));
        copy.sharesNested = true;
        copy.publishedAt = publishedAt;
        copy.associated = associated;
        return copy;
    }

    /** Whether this message has the same fields as {@code other}, nested values compared by content. */
    public boolean sameFields(MessageImpl other) {
        return fields.equals(other.fields);
    }

    /** Makes {@code field} this copy's own before code reaches into it. */
    private Object own(String field) {
        Object value = fields.get(field);
        if (sharesNested && JsonValues.isNested(value) && (owned == null || !owned.contains(field))) {
            value = JsonValues.deepCopy(value);
            fields.put(field, value);
            markOwned(field);
        }
        return value;
    }

    private void markOwned(String field) {
        if (sharesNested) {
            if (owned == null) {
                owned = new HashSet<>(4);
            }
            owned.add(field);
        }
    }

    /** When this message was published ({@link System#nanoTime()}), for the delivery latency; 0 if it was not. */
    public long publishedAt() {
        return publishedAt;
    }

    /** Stamps the publish time; call before {@link #freeze()}. */
    public MessageImpl publishedAt(long nanoTime) {
        this.publishedAt = nanoTime;
        return this;
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

    /**
     * This message alone in a JSON array, UTF-8. For a frozen message, computed once and shared by every recipient
     * whose batch it is alone in (so that an engine can write one frame's bytes to all of them); do not modify it.
     */
    public byte[] alone(JsonCodec codec) {
        if (!frozen) {
            return JsonCodec.inArray(codec.encodeOne(this));
        }
        byte[] result = alone;
        if (result == null) {
            // Two threads may both build it: each gets a correct array, and one of them is kept.
            result = JsonCodec.inArray(json(codec));
            alone = result;
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
        return get(DATA);
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
        return get(field) instanceof Map<?, ?> map ? (Map<String, Object>) map : null;
    }

    @Override
    public boolean isSuccessful() {
        return Boolean.TRUE.equals(fields.get(SUCCESSFUL));
    }

    @Override
    public Object get(String field) {
        return frozen ? JsonValues.readOnly(fields.get(field)) : own(field);
    }

    @Override
    public boolean containsKey(String field) {
        return fields.containsKey(field);
    }

    @Override
    public Set<String> fieldNames() {
        return Collections.unmodifiableSet(fields.keySet());
    }

    @SuppressWarnings("unchecked")
    @Override
    public Map<String, Object> asMap() {
        if (frozen) {
            return (Map<String, Object>) JsonValues.readOnly(fields);
        }
        if (sharesNested) {
            for (String field : List.copyOf(fields.keySet())) {
                own(field);
            }
        }
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
            markOwned(field);
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
        markOwned(field);
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
