package io.weft.transport.websocket;

import io.weft.server.testing.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Bayeux client written out by hand over any {@link Wire}: raw JSON in, parsed replies out, and, once connected, a
 * {@code /meta/connect} loop like the official clients keep (the next connect goes out when the previous reply comes
 * back). Lets one scenario run over websocket and long-polling alike.
 */
final class ScriptedClient implements AutoCloseable {
    static final long WAIT = 5;

    private final Wire wire;
    private final AtomicInteger ids = new AtomicInteger();
    private volatile String clientId;
    private volatile boolean connecting;

    ScriptedClient(Wire wire) {
        this.wire = wire;
        wire.onReceive(this::received);
    }

    Wire wire() {
        return wire;
    }

    Inbox inbox() {
        return wire.inbox();
    }

    String clientId() {
        return clientId;
    }

    /** Uses an existing session, as a reloaded page or a reconnecting client does. */
    ScriptedClient resume(String existingClientId) {
        this.clientId = existingClientId;
        return this;
    }

    Map<String, Object> handshake() {
        Map<String, Object> reply = call(message("/meta/handshake", "version", "1.0", "supportedConnectionTypes",
                List.of(wire.connectionType())));
        if (Boolean.TRUE.equals(reply.get("successful"))) {
            clientId = (String) reply.get("clientId");
        }
        return reply;
    }

    /** Sends a first {@code /meta/connect} (not held) and returns its reply; later ones follow by themselves. */
    Map<String, Object> connect() {
        connecting = true;
        Map<String, Object> connect = message("/meta/connect", "connectionType", wire.connectionType(),
                "advice", Map.of("timeout", 0));
        return call(connect);
    }

    Map<String, Object> subscribe(String channel) {
        return call(message("/meta/subscribe", "subscription", channel));
    }

    Map<String, Object> unsubscribe(String channel) {
        return call(message("/meta/unsubscribe", "subscription", channel));
    }

    Map<String, Object> publish(String channel, Object data) {
        return call(message(channel, "data", data));
    }

    Map<String, Object> disconnect() {
        connecting = false;
        return call(message("/meta/disconnect"));
    }

    /** Waits for a message published on {@code channel} whose data equals {@code data}. */
    Map<String, Object> awaitDelivery(String channel, Object data) {
        return inbox().take(m -> channel.equals(m.get("channel")) && data.equals(m.get("data")), WAIT,
                "delivery of " + data + " on " + channel);
    }

    /** Whether a message with this data on this channel arrives within {@code seconds}. */
    boolean receives(String channel, Object data, long seconds) {
        return inbox().poll(m -> channel.equals(m.get("channel")) && data.equals(m.get("data")), seconds) != null;
    }

    /** Sends one message (with a fresh id and this client's clientId) and waits for its reply. */
    Map<String, Object> call(Map<String, Object> message) {
        String id = (String) message.get("id");
        wire.send(Json.write(List.of(message)));
        return inbox().take(Inbox.reply((String) message.get("channel"), id), WAIT,
                "reply to " + message.get("channel"));
    }

    /** A message on {@code channel} with a fresh id and this client's clientId, then {@code fields} (name, value…). */
    Map<String, Object> message(String channel, Object... fields) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("channel", channel);
        message.put("id", String.valueOf(ids.incrementAndGet()));
        if (clientId != null) {
            message.put("clientId", clientId);
        }
        for (int i = 0; i < fields.length; i += 2) {
            message.put((String) fields[i], fields[i + 1]);
        }
        return message;
    }

    private void received(List<Map<String, Object>> batch) {
        for (Map<String, Object> message : batch) {
            if ("/meta/connect".equals(message.get("channel")) && connecting) {
                if (Boolean.TRUE.equals(message.get("successful"))) {
                    // As the official clients do: the next connect after the advised interval (2 s for a browser
                    // that already has a held poll, with multiple-clients advice).
                    Object interval = message.get("advice") instanceof Map<?, ?> advice ? advice.get("interval") : null;
                    long delay = interval instanceof Number millis ? millis.longValue() : 0;
                    String next = Json.write(List.of(message("/meta/connect", "connectionType",
                            wire.connectionType())));
                    if (delay == 0) {
                        wire.send(next);
                    } else {
                        CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS).execute(() -> {
                            if (connecting) {
                                wire.send(next);
                            }
                        });
                    }
                } else {
                    connecting = false;
                }
            }
        }
    }

    @Override
    public void close() {
        connecting = false;
        wire.close();
    }
}
