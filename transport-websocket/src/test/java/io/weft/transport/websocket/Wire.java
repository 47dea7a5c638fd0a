package io.weft.transport.websocket;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** One client's way of carrying Bayeux batches to the server: a WebSocket, or HTTP long-polling requests. */
interface Wire extends AutoCloseable {
    /** The Bayeux connection type this wire speaks. */
    String connectionType();

    /** Sends one batch of JSON text; what comes back arrives in {@link #inbox()} (and at the listener). */
    void send(String batch);

    Inbox inbox();

    /**
     * Adds a listener called with every batch received, before the batch is added to the inbox (a client's connect
     * loop hooks in here).
     */
    void onReceive(Consumer<List<Map<String, Object>>> listener);

    @Override
    void close();
}
