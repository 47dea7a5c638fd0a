package io.weft.server.internal.session;

import io.weft.bayeux.internal.MessageImpl;
import java.util.function.Supplier;

/**
 * A {@code /meta/connect} as the session's state machine needs it.
 *
 * @param outlet where the reply (and, for polling, the queue) leaves
 * @param persistent whether the outlet is a WebSocket, which pushes deliveries without waiting for a connect
 * @param connectionType the Bayeux connection type, for {@link SessionImpl#getConnectionType()}
 * @param reply builds the reply, now or when the hold ends
 * @param holdMillis how long to hold when nothing is queued; 0 answers at once
 * @param mayHold false when the connect shares its HTTP request with other messages, which must not wait
 * @param browserId the browser id presented, which limits held polls per browser; null for none
 */
public record ConnectRequest(
        Outlet outlet,
        boolean persistent,
        String connectionType,
        Supplier<MessageImpl> reply,
        long holdMillis,
        boolean mayHold,
        String browserId) {
}
