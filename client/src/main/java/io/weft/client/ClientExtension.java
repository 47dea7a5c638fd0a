package io.weft.client;

import io.weft.bayeux.Message;

/**
 * Sees and may change every message a {@link BayeuxClient} sends and receives, as the Bayeux extensions of the
 * official clients do (an authentication token in the handshake's {@code ext}, acknowledgements, time sync).
 *
 * <p>Extensions run in the order they were added to the builder, both ways. {@link #outgoing} runs on the thread that
 * sends (the caller of {@code publish}, or a client thread) just before the message is encoded; {@link #incoming} on
 * the thread that read it, before any listener. Both must be quick and must not block. Returning false drops the
 * message (an outgoing one is not sent and its callback fails; an incoming one reaches no listener). An extension
 * that throws is logged and skipped.
 */
public interface ClientExtension {
    /** A message about to be sent. @return false to drop it */
    default boolean outgoing(BayeuxClient client, Message.Mutable message) {
        return true;
    }

    /** A message just received. @return false to drop it */
    default boolean incoming(BayeuxClient client, Message.Mutable message) {
        return true;
    }
}
