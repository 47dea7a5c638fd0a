package io.weft.server.internal.protocol;

import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.internal.session.SessionImpl;

/**
 * Handles one kind of message (one meta channel, or publish). Adds its replies to the run and completes
 * {@code done} exactly once, on any thread; the next message of the batch is handled only then.
 */
interface MetaHandler {
    /**
     * @param session the sender's session, admitted for this connection; null only for {@code /meta/handshake}
     */
    void handle(BatchRun run, MessageImpl request, SessionImpl session, Promise<Void> done);
}
