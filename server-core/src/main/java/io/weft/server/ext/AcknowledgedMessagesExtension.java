package io.weft.server.ext;

import io.weft.bayeux.JsonNumbers;
import io.weft.bayeux.Message;
import io.weft.server.api.Extension;
import io.weft.server.api.ServerSession;
import java.util.Map;

/**
 * Reliable, ordered delivery for clients that ask for it: the server side of the official clients' AckExtension.
 *
 * <p>A client handshakes with {@code ext: {ack: true}}; the reply says {@code ext: {ack: true}} and from then on the
 * session's messages travel only with {@code /meta/connect} replies, on every transport. Each such reply carries a
 * batch id in {@code ext.ack}; the client's next {@code /meta/connect} sends back the last id it received. A batch
 * the client did not acknowledge (its reply was lost with a dropped connection) is sent again, before anything
 * newer, so nothing is lost or reordered while the session lives. At most
 * {@link io.weft.server.api.ServerOptions#maxUnacknowledged()} unacknowledged messages are kept per session.
 *
 * <p>Install once, server-wide: {@code server.addExtension(new AcknowledgedMessagesExtension())}. Stateless itself;
 * the per-session state lives with each session. It negotiates and reads the client's acknowledgements; the numbering,
 * keeping and re-sending are the engine's ({@link ServerSession#enableAcknowledgedDelivery()},
 * {@link ServerSession#acknowledge(long)}), which an application's own extension may use the same way.
 */
public final class AcknowledgedMessagesExtension implements Extension {
    private static final String ACK = "ack";

    public AcknowledgedMessagesExtension() {
    }

    @Override
    public boolean incoming(ServerSession from, Message.Mutable message) {
        if (from != null && Message.META_CONNECT.equals(message.getChannel())) {
            Map<String, Object> ext = message.getExt();
            if (ext != null && ext.get(ACK) instanceof Number lastReceived) {
                // Clamped, not wrapped: 2^64 + 1 is "everything", not batch 1.
                from.acknowledge(JsonNumbers.toLong(lastReceived));
            }
        }
        return true;
    }

    @Override
    public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
        if (Message.META_HANDSHAKE.equals(message.getChannel()) && message.isSuccessful()
                && to != null && asked(message.getAssociated())) {
            to.enableAcknowledgedDelivery();
            message.getExt(true).put(ACK, true);
        }
        return true;
    }

    private static boolean asked(Message handshake) {
        Map<String, Object> ext = handshake == null ? null : handshake.getExt();
        return ext != null && Boolean.TRUE.equals(ext.get(ACK));
    }
}
