package io.weft.server.testing;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One test client's way of carrying raw Bayeux batches to a server, whatever the transport: the in-memory polling
 * transport or socket ({@link InMemoryWire}), HTTP long-polling or callback-polling, a WebSocket (the transport
 * modules' wires). {@link ScriptedClient} speaks Bayeux over any of them.
 */
public interface Wire extends AutoCloseable {
    /** The Bayeux connection type this wire speaks. */
    String connectionType();

    /**
     * Sends one batch of JSON text without waiting; what comes back (its answer, and on a socket anything else the
     * server writes) goes to the listeners, then to the {@link #inbox()}.
     */
    void send(String batch);

    /**
     * For a wire where each batch gets exactly one answer (polling): sends one batch and completes with that answer's
     * JSON array, which goes to neither the listeners nor the inbox. A socket has no such answer and refuses.
     */
    default CompletableFuture<String> request(String batch) {
        throw new UnsupportedOperationException(connectionType() + " over " + getClass().getSimpleName()
                + " does not answer each batch on its own");
    }

    /** What the server sent and the test has not taken yet. */
    Inbox inbox();

    /**
     * Adds a listener called with every batch received through {@link #send}, before it goes to the inbox (a client's
     * connect loop hooks in here).
     */
    void onReceive(Consumer<List<Map<String, Object>>> listener);

    /** Gives up what is in flight (a held poll among it) or closes the socket, as a closing page does. */
    @Override
    void close();
}
