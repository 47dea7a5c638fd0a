package io.weft.server.api;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;

/**
 * Sees, and may change or drop, every message between the transports and the engine: incoming after decoding,
 * outgoing before encoding. Installed server-wide ({@link BayeuxServer#addExtension}) or on one session
 * ({@link ServerSession#addExtension}).
 *
 * <p>Order, fixed: incoming messages pass the server's extensions in the order added, then the session's;
 * outgoing messages pass the session's extensions in reverse order, then the server's in reverse order (a stack:
 * the first extension added is the outermost). Meta messages pass too; check {@link Message#isMeta()} when that
 * matters.
 *
 * <p>Threads: incoming runs on the thread processing the client's batch; outgoing on the thread delivering (for a
 * broadcast, the publisher's thread, once per recipient; for a held {@code /meta/connect}, the thread that resumes
 * it). Methods must not block: an extension that must wait overrides the asynchronous
 * {@link #incoming(ServerSession, Message.Mutable, Promise)} and completes the promise later. An extension that
 * throws is logged once and skipped, as if it had returned true.
 *
 * <p>Outgoing broadcast messages are shared by every recipient: read them freely, and change them only through
 * the {@code Mutable} passed in (which then becomes this recipient's own copy); the maps returned by a frozen
 * message's getters are read-only.
 */
public interface Extension {
    /**
     * A message from a client. Return false to drop it: the client gets {@code 404::message_deleted}.
     *
     * @param from the sender's session, or null for {@code /meta/handshake} and unknown clients
     */
    default boolean incoming(ServerSession from, Message.Mutable message) {
        return true;
    }

    /** The asynchronous form of {@link #incoming(ServerSession, Message.Mutable)}; complete the promise once. */
    default void incoming(ServerSession from, Message.Mutable message, Promise<Boolean> promise) {
        promise.succeed(incoming(from, message));
    }

    /**
     * A message about to be sent to {@code to}: a reply, or a delivery. Return false to not send it (to this
     * recipient).
     *
     * @param from the publisher's session for a delivery, or null (replies, server publishes)
     * @param to the recipient; null only for replies to clients without a session (unknown clientId, denied
     *     handshake)
     */
    default boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
        return true;
    }
}
