package io.weft.server.internal.delivery;

import io.weft.server.internal.codec.MessageImpl;
import io.weft.server.internal.session.SessionImpl;

/**
 * Fan-out: gives a published message to every session that should receive it. The default is in-memory
 * ({@link LocalBroker}); a cluster would put a broker here that also relays to other nodes.
 */
public interface Broker {
    /**
     * Queues a frozen message for its recipients and adds them to {@code wakes}.
     *
     * @param publisher the publishing session, or null for a message from server code
     * @return how many sessions it was queued for
     */
    int publish(MessageImpl message, SessionImpl publisher, Wakes wakes);
}
