package io.weft.server.testing;

import io.weft.server.api.BayeuxServer;
import io.weft.server.spi.InMemoryTransport;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tests' one Bayeux client written out by hand: raw JSON out, parsed replies back, over any {@link Wire} (the
 * in-memory transport here, HTTP long-polling, callback-polling and WebSocket in the transport modules), so a
 * conversation reads the same whatever carries it.
 *
 * <p>Two ways to talk. Any wire: {@link #call} and the meta helpers send a message and take its reply from the
 * {@link #inbox()} by id; {@link #connect()} starts a {@code /meta/connect} loop as the official clients keep (the next
 * connect goes out when the previous reply comes back); deliveries wait in the inbox ({@link #awaitDelivery}). A
 * polling wire also answers each request on its own: {@link #send}, {@link #connectNow}, {@link #heldConnect} and
 * {@link #publishJson} return that answer whole (a held connect's answer carries the deliveries with the reply).
 */
public final class ScriptedClient implements AutoCloseable {
    /** Seconds a reply or a delivery is waited for. */
    public static final long WAIT = 5;

    private final Wire wire;
    private final AtomicInteger ids = new AtomicInteger();
    private volatile String clientId;
    private volatile boolean connecting;

    public ScriptedClient(Wire wire) {
        this.wire = wire;
        wire.onReceive(this::received);
    }

    /** A client of the in-memory polling transport {@code transport}, in the browser {@code browserId}. */
    public ScriptedClient(InMemoryTransport transport, String browserId) {
        this(new InMemoryWire(transport, browserId));
    }

    /** A client of {@code server}'s in-memory polling transport, in the browser {@code browserId}. */
    public static ScriptedClient of(BayeuxServer server, String browserId) {
        return new ScriptedClient(InMemoryTransport.polling(server), browserId);
    }

    /** A client of {@code browser} that has handshaken and had its first /meta/connect answered. */
    public static ScriptedClient connected(BayeuxServer server, String browser) {
        ScriptedClient client = of(server, browser);
        client.handshake();
        client.connectNow();
        return client;
    }

    public Wire wire() {
        return wire;
    }

    public Inbox inbox() {
        return wire.inbox();
    }

    public String clientId() {
        return clientId;
    }

    /** Uses an existing session: as a reloaded page or a reconnecting client does, or to act for another's. */
    public ScriptedClient resume(String existingClientId) {
        this.clientId = existingClientId;
        return this;
    }

    // --- any wire: a message out, its reply taken from the inbox by id

    /** Handshakes; remembers the clientId of a successful reply. */
    public Map<String, Object> handshake() {
        Map<String, Object> reply = call(message("/meta/handshake", "version", "1.0", "supportedConnectionTypes",
                List.of(wire.connectionType())));
        if (Boolean.TRUE.equals(reply.get("successful"))) {
            clientId = (String) reply.get("clientId");
        }
        return reply;
    }

    /** Sends a first {@code /meta/connect} (not held) and returns its reply; later ones follow by themselves. */
    public Map<String, Object> connect() {
        connecting = true;
        return call(message("/meta/connect", "connectionType", wire.connectionType(), "advice", Map.of("timeout", 0)));
    }

    public Map<String, Object> subscribe(String channel) {
        return call(message("/meta/subscribe", "subscription", channel));
    }

    public Map<String, Object> unsubscribe(String channel) {
        return call(message("/meta/unsubscribe", "subscription", channel));
    }

    /** Publishes {@code data} (written as JSON) and returns the reply. */
    public Map<String, Object> publish(String channel, Object data) {
        return call(message(channel, "data", data));
    }

    public Map<String, Object> disconnect() {
        connecting = false;
        return call(message("/meta/disconnect"));
    }

    /** Waits for a message published on {@code channel} whose data equals {@code data}. */
    public Map<String, Object> awaitDelivery(String channel, Object data) {
        return inbox().take(m -> channel.equals(m.get("channel")) && data.equals(m.get("data")), WAIT,
                "delivery of " + data + " on " + channel);
    }

    /** Whether a message with this data on this channel arrives within {@code seconds}. */
    public boolean receives(String channel, Object data, long seconds) {
        return inbox().poll(m -> channel.equals(m.get("channel")) && data.equals(m.get("data")), seconds) != null;
    }

    /** Sends one message and waits for its reply (a delivery of one's own publish carries its id too, not this). */
    public Map<String, Object> call(Map<String, Object> message) {
        String id = (String) message.get("id");
        wire.send(Json.write(List.of(message)));
        return inbox().take(Inbox.reply((String) message.get("channel"), id), WAIT,
                "reply to " + message.get("channel"));
    }

    /** A message on {@code channel} with a fresh id and this client's clientId, then {@code fields} (name, value…). */
    public Map<String, Object> message(String channel, Object... fields) {
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

    // --- a polling wire: each request's whole answer

    /** Sends a raw body and waits for its whole answer (which must not be held). */
    public List<Map<String, Object>> send(String body) {
        return await(sendAsync(body));
    }

    /** Sends a raw body; completes with its whole answer, raw, when the server gives it. */
    public CompletableFuture<String> sendAsync(String body) {
        return wire.request(body);
    }

    /** A /meta/connect with advice timeout 0, answered at once, with whatever was queued. */
    public List<Map<String, Object>> connectNow() {
        return send(connectJson(true));
    }

    /** A /meta/connect that the server may hold: its answer carries what is delivered meanwhile. */
    public CompletableFuture<String> heldConnect() {
        return sendAsync(connectJson(false));
    }

    /** A held /meta/connect as an exchange the client can abandon (the in-memory wire only). */
    public InMemoryTransport.Exchange connectExchange() {
        if (!(wire instanceof InMemoryWire inMemory)) {
            throw new UnsupportedOperationException("only the in-memory wire abandons requests by hand");
        }
        return inMemory.exchange(connectJson(false));
    }

    /** Publishes the JSON text {@code dataJson} as data and returns the request's whole answer. */
    public List<Map<String, Object>> publishJson(String channel, String dataJson) {
        return send("[{\"channel\":\"" + channel + "\",\"data\":" + dataJson + ",\"clientId\":\"" + clientId
                + "\",\"id\":\"" + ids.incrementAndGet() + "\"}]");
    }

    /** The bytes of the answers to this client's requests so far (the in-memory wire only). */
    public long bytesReceived() {
        if (!(wire instanceof InMemoryWire inMemory)) {
            throw new UnsupportedOperationException("only the in-memory wire counts bytes");
        }
        return inMemory.bytesReceived();
    }

    /** A held or answered request's answer, parsed, waiting up to {@link #WAIT} seconds. */
    public static List<Map<String, Object>> await(CompletableFuture<String> response) {
        try {
            return Json.array(response.get(WAIT, TimeUnit.SECONDS));
        } catch (Exception x) {
            throw new AssertionError("no response within " + WAIT + " s", x);
        }
    }

    private String connectJson(boolean now) {
        return Json.write(List.of(now
                ? message("/meta/connect", "connectionType", wire.connectionType(), "advice", Map.of("timeout", 0))
                : message("/meta/connect", "connectionType", wire.connectionType())));
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
