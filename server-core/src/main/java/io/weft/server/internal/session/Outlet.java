package io.weft.server.internal.session;

import io.weft.bayeux.Message;
import java.util.List;

/**
 * Where a session's outgoing messages leave: one HTTP exchange (which sends them as its response) or a WebSocket
 * (which queues them for its flusher). Implemented by the protocol layer; called without any session lock held.
 */
public interface Outlet {
    /** Sends these messages, in order, as soon as the connection can. */
    void deliver(List<Message> messages);

    /** For persistent connections: the session's queue has messages the outlet may push. One-shot outlets ignore it. */
    default void wake() {
    }

    /**
     * The server is draining: what this outlet is given next (by {@link #deliver}, or as its batch's replies) is the
     * last it carries, and its connection is closed once that is written, so that the client comes back through its
     * load balancer ({@link io.weft.server.spi.Connection#goAway()}). Call it before giving that last answer.
     */
    default void goAway() {
    }

    /** For a session's stream: the session has ended; write what was sent to it, then close. */
    default void sessionEnded() {
    }
}
