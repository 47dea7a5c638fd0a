package io.weft.server.spi;

import io.weft.server.api.Message;
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
    void receive(List<Message.Mutable> batch);

    /**
     * The connection has ended (socket closed, or the HTTP client went away while its request was held). A held
     * {@code /meta/connect} on it is dropped, and its session expires after {@code maxInterval} unless the client
     * comes back. Idempotent.
     */
    void closed();
}
