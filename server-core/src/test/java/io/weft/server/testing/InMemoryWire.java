package io.weft.server.testing;

import io.weft.server.spi.InMemoryTransport;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A {@link Wire} over server-core's {@link InMemoryTransport}, no sockets: each batch one request of the polling
 * transport, answered once, at once or when a held {@code /meta/connect} ends, as long-polling is.
 */
public final class InMemoryWire implements Wire {
    private final InMemoryTransport transport;
    private final String browserId;
    private final Inbox inbox = new Inbox();
    private final List<Consumer<List<Map<String, Object>>>> listeners = new CopyOnWriteArrayList<>();
    private final AtomicLong bytesReceived = new AtomicLong();

    /** Requests to {@code transport} from the browser {@code browserId} (null: a client without cookies). */
    public InMemoryWire(InMemoryTransport transport, String browserId) {
        this.transport = transport;
        this.browserId = browserId;
    }

    /** What the official clients call the type; the in-memory transport serves any. */
    @Override
    public String connectionType() {
        return "long-polling";
    }

    @Override
    public void send(String batch) {
        request(batch).thenAccept(answer -> {
            List<Map<String, Object>> received = Json.array(answer);
            listeners.forEach(listener -> listener.accept(received));
            inbox.add(received);
        });
    }

    @Override
    public CompletableFuture<String> request(String batch) {
        CompletableFuture<String> answer = transport.request(browserId, batch);
        answer.thenAccept(text -> bytesReceived.addAndGet(text.getBytes(StandardCharsets.UTF_8).length));
        return answer;
    }

    /** A request the client can abandon, as a closed tab abandons its held connect. */
    public InMemoryTransport.Exchange exchange(String batch) {
        return transport.exchange(browserId, batch);
    }

    /** The bytes of the answers to this wire's requests so far. */
    public long bytesReceived() {
        return bytesReceived.get();
    }

    @Override
    public Inbox inbox() {
        return inbox;
    }

    @Override
    public void onReceive(Consumer<List<Map<String, Object>>> listener) {
        listeners.add(listener);
    }

    /** Nothing is held open by the client itself: a test abandons a request through {@link #exchange}. */
    @Override
    public void close() {
    }
}
