package io.weft.client;

import io.weft.server.api.ChannelId;
import io.weft.server.api.Message;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The client's message: a JSON object kept as an insertion-ordered map. Mutable while the client builds it or while
 * extensions see it; after that it is only read. Not thread-safe: a message belongs to one thread at a time, and the
 * client hands it from one to the next through its own synchronisation (a lock, a transport's queue).
 */
final class ClientMessage implements Message.Mutable {
    private final Map<String, Object> fields;
    private volatile Message associated;

    ClientMessage() {
        this.fields = new LinkedHashMap<>(8);
    }

    ClientMessage(Map<String, Object> fields) {
        this.fields = fields;
    }

    static ClientMessage of(String channel) {
        return (ClientMessage) new ClientMessage().setChannel(channel);
    }

    @Override
    public String getChannel() {
        Object channel = fields.get(CHANNEL);
        return channel instanceof String s ? s : null;
    }

    @Override
    public ChannelId getChannelId() {
        String channel = getChannel();
        return channel != null && ChannelId.isValid(channel) ? ChannelId.of(channel) : null;
    }

    /** Whether the channel starts with {@code /meta/}, without parsing it. */
    @Override
    public boolean isMeta() {
        String channel = getChannel();
        return channel != null && channel.startsWith("/meta/");
    }

    @Override
    public String getId() {
        Object id = fields.get(ID);
        return id == null ? null : id.toString();
    }

    @Override
    public String getClientId() {
        Object clientId = fields.get(CLIENT_ID);
        return clientId instanceof String s ? s : null;
    }

    @Override
    public Object getData() {
        return fields.get(DATA);
    }

    @Override
    public Map<String, Object> getDataAsMap() {
        return asObject(fields.get(DATA));
    }

    @Override
    public Map<String, Object> getExt() {
        return asObject(fields.get(EXT));
    }

    @Override
    public Map<String, Object> getAdvice() {
        return asObject(fields.get(ADVICE));
    }

    @Override
    public boolean isSuccessful() {
        return Boolean.TRUE.equals(fields.get(SUCCESSFUL));
    }

    /** For a reply, the request it answers; null for other messages. */
    @Override
    public Message getAssociated() {
        return associated;
    }

    void setAssociated(Message request) {
        this.associated = request;
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
        return ClientCodec.toJson(fields);
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
        if (value == null) {
            fields.remove(field);
        } else {
            fields.put(field, value);
        }
        return this;
    }

    @Override
    public Object remove(String field) {
        return fields.remove(field);
    }

    @Override
    public Map<String, Object> getExt(boolean create) {
        return object(EXT, create);
    }

    @Override
    public Map<String, Object> getAdvice(boolean create) {
        return object(ADVICE, create);
    }

    private Map<String, Object> object(String field, boolean create) {
        Map<String, Object> value = asObject(fields.get(field));
        if (value == null && create) {
            value = new LinkedHashMap<>(4);
            fields.put(field, value);
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asObject(Object value) {
        return value instanceof Map<?, ?> map ? (Map<String, Object>) map : null;
    }

    @Override
    public String toString() {
        return toJson();
    }
}
