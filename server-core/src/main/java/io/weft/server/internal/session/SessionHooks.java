package io.weft.server.internal.session;

import io.weft.bayeux.Message;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.EndReason;
import java.util.List;

/**
 * What sessions need from the rest of the engine: extensions, listeners, delivery. Implemented once by the server;
 * every method is called without any session lock held.
 */
public interface SessionHooks {
    /**
     * A {@code /meta/connect} reply is about to leave with {@code out} (queued messages it carries, then the reply,
     * last; its batch already numbered for acknowledgements): run outgoing extensions on the reply. May replace or
     * remove the last element.
     */
    void beforeConnectReply(SessionImpl session, List<Message> out);

    void queued(SessionImpl session, Message message);

    void queueFull(SessionImpl session, Message message);

    /** A session has ended and left {@code channels}. */
    void ended(SessionImpl session, EndReason reason, List<Subscription> channels);

    /** {@link io.weft.server.api.ServerSession#deliver}: outgoing extensions, then the queue, then a wake. */
    void deliverTo(SessionImpl to, SessionImpl from, MessageImpl message);
}
