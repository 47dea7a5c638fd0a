package io.weft.transport.longpoll.testing;

import io.weft.server.testing.Inbox;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import io.weft.server.testing.Wire;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.eclipse.jetty.client.HttpClient;

/**
 * The scripted client's {@code eventsource} wire ({@link ScriptedClient} over it), as a browser's client does it:
 * every batch goes up by POST as on long-polling ({@link HttpWire}), and the session's messages come down on its
 * Server-Sent Events stream ({@link SseStream}), which is opened with the session's first {@code /meta/connect} and
 * opened again, with {@code Last-Event-ID}, by the next connect after the server or the network ended it (as
 * {@code EventSource} reconnects by itself). Whatever arrives either way goes to the listeners, then the inbox.
 */
public final class EventSourceWire implements Wire {
    private final HttpClient http;
    private final URI uri;
    private final String cookieHeader;
    private final HttpWire uplink;
    private final List<Consumer<List<Map<String, Object>>>> listeners = new CopyOnWriteArrayList<>();
    private volatile SseStream stream;
    private volatile String streamClientId;

    /** A client that sends {@code cookieHeader} as its whole {@code Cookie} header (null: none) on every request. */
    public EventSourceWire(HttpClient http, URI uri, String cookieHeader) {
        this.http = http;
        this.uri = uri;
        this.cookieHeader = cookieHeader;
        this.uplink = new HttpWire(http, uri, cookieHeader, false);
        uplink.onReceive(received -> listeners.forEach(listener -> listener.accept(received)));
    }

    @Override
    public String connectionType() {
        return "eventsource";
    }

    /** The stream now open (or last opened), or null before the first connect. */
    public SseStream stream() {
        return stream;
    }

    @Override
    public void send(String batch) {
        openStreamFor(batch);
        uplink.send(batch);
    }

    @Override
    public CompletableFuture<String> request(String batch) {
        openStreamFor(batch);
        return uplink.request(batch);
    }

    /** A {@code /meta/connect} needs the stream its reply comes on: opened, or opened again, first. */
    private synchronized void openStreamFor(String batch) {
        for (Map<String, Object> message : Json.array(batch)) {
            if ("/meta/connect".equals(message.get("channel")) && message.get("clientId") instanceof String id) {
                SseStream current = stream;
                if (current == null || current.isEnded() || !id.equals(streamClientId)) {
                    if (current != null) {
                        current.close();
                    }
                    String lastEventId = current == null || !id.equals(streamClientId) ? null : current.lastEventId();
                    streamClientId = id;
                    stream = SseStream.open(http, uri, id, cookieHeader, lastEventId, this::received);
                }
                return;
            }
        }
    }

    private void received(List<Map<String, Object>> batch) {
        listeners.forEach(listener -> listener.accept(batch));
        uplink.inbox().add(batch);
    }

    @Override
    public Inbox inbox() {
        return uplink.inbox();
    }

    @Override
    public void onReceive(Consumer<List<Map<String, Object>>> listener) {
        listeners.add(listener);
    }

    /** Gives up the stream and every request in flight, as a closing page does. */
    @Override
    public void close() {
        SseStream current = stream;
        if (current != null) {
            current.close();
        }
        uplink.close();
    }
}
