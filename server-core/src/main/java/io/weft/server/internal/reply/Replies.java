package io.weft.server.internal.reply;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.Message;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.EndReason;

/**
 * Every reply the engine writes is built here: the request's channel and id echoed, then the outcome
 * ({@code successful}, a {@link BayeuxError} from the closed set, an {@link Advice}).
 */
public final class Replies {
    private Replies() {
    }

    /** A reply to {@code request}: its channel and id, not yet successful or failed. */
    public static MessageImpl to(Message request) {
        MessageImpl reply = new MessageImpl();
        String channel = request.getChannel();
        if (channel != null) {
            reply.setChannel(channel);
        }
        Object id = request.get(Message.ID);
        if (id != null) {
            reply.put(Message.ID, id);
        }
        return reply;
    }

    public static MessageImpl success(Message request) {
        MessageImpl reply = to(request);
        reply.setSuccessful(true);
        return reply;
    }

    public static MessageImpl success(Message request, Advice advice) {
        MessageImpl reply = success(request);
        reply.put(Message.ADVICE, advice.toMap());
        return reply;
    }

    /**
     * A failed reply. {@link BayeuxError#SESSION_UNKNOWN} carries {@link Advice#HANDSHAKE_NOW}: the official clients
     * handshake again when told so, and without it would retry forever.
     */
    public static MessageImpl error(Message request, BayeuxError error) {
        MessageImpl reply = to(request);
        reply.setSuccessful(false);
        reply.put(Message.ERROR, error.toString());
        if (error.code() == BayeuxError.SESSION_UNKNOWN.code()) {
            reply.put(Message.ADVICE, Advice.HANDSHAKE_NOW.toMap());
        }
        return reply;
    }

    /**
     * The reply to a request for a session that is gone, told why when the server ended it on purpose: a disconnect
     * or a slow consumer's overflow gets {@code reconnect: none} (the client must stop, not start a new session);
     * a drained one {@code 503::server_draining} with advice to handshake (elsewhere); anything else ({@code reason}
     * null: unknown, expired, closing) {@code 402::session_unknown} with advice to
     * handshake. The one mapping for a clientId that no session answers and for a connect that meets its session's
     * end.
     */
    public static MessageImpl sessionGone(Message request, EndReason reason) {
        if (reason == EndReason.QUEUE_FULL) {
            return error(request, BayeuxError.QUEUE_FULL, Advice.NONE);
        }
        if (reason == EndReason.SERVER_DISCONNECT) {
            return error(request, BayeuxError.SESSION_UNKNOWN, Advice.NONE);
        }
        if (reason == EndReason.DRAINED) {
            return error(request, BayeuxError.SERVER_DRAINING, Advice.HANDSHAKE_NOW);
        }
        return error(request, BayeuxError.SESSION_UNKNOWN);
    }

    public static MessageImpl error(Message request, BayeuxError error, Advice advice) {
        MessageImpl reply = error(request, error);
        reply.put(Message.ADVICE, advice.toMap());
        return reply;
    }

    /**
     * A {@code /meta/disconnect} the client did not ask for: the server ended its session ({@code error} null for a
     * plain disconnect), pushed on a socket or carried with a held connect's reply.
     */
    public static MessageImpl disconnected(BayeuxError error) {
        MessageImpl notice = new MessageImpl();
        notice.setChannel(Message.META_DISCONNECT).setSuccessful(true);
        if (error != null) {
            notice.put(Message.ERROR, error.toString());
        }
        return notice;
    }

    /** Turns a successful reply into a failed one: a held connect's reply when its session ends in error. */
    public static void fail(MessageImpl reply, BayeuxError error) {
        reply.setSuccessful(false).put(Message.ERROR, error.toString());
    }
}
