package io.weft.server.spi;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import java.util.List;

/**
 * The engine's side of one {@link Connection}, returned by {@link Engine#open(Connection)}: the transport hands it
 * every batch it decodes and tells it when the connection ends. Methods may be called from any thread, but a
 * transport calls {@link #receive} for one connection's batches in the order they arrived.
 */
public interface Inbound {
    /**
     * Processes one batch (the decoded body of a request, or one WebSocket frame). Replies go out through the
     * connection's {@link Connection#send}. Never throws for bad input: malformed messages get error replies.
     */
    default void receive(List<Message.Mutable> batch) {
        receive(batch, Promise.noop());
    }

    /**
     * As {@link #receive(List)}, telling the transport when the batch is done: {@code processed} completes once every
     * message of the batch has been handled and the replies it produced have been written (a held
     * {@code /meta/connect} is not waited for: its reply comes later). It completes, possibly before this method
     * returns, on whatever thread finished the work; it fails only if the connection ended first.
     *
     * <p>This is the transport's backpressure: a persistent transport reads its next batch only once the previous
     * one's {@code processed} has completed, so that a client that sends without reading replies makes the server
     * hold one batch's replies, not an unbounded queue, and batches are handled strictly in order.
     */
    void receive(List<Message.Mutable> batch, Promise<Void> processed);

    /**
     * The connection has ended (socket closed, or the HTTP client went away while its request was held). A held
     * {@code /meta/connect} on it is dropped, and its session expires after {@code maxInterval} unless the client
     * comes back. Idempotent.
     */
    void closed();
}
