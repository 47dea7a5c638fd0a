package io.weft.client;

import io.weft.bayeux.Message;

/**
 * The server answered a request with {@code successful: false}: a denied subscribe or publish
 * ({@code 403::publish_denied}), an unknown session ({@code 402::session_unknown}), … The reply is kept whole so a
 * caller can read its {@code error} and {@code advice}. Passed to {@link io.weft.bayeux.Promise#fail}.
 */
public final class ReplyException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient Message reply;

    public ReplyException(Message reply) {
        super(String.valueOf(reply.get(Message.ERROR)), null, false, false);
        this.reply = reply;
    }

    /** The unsuccessful reply. */
    public Message reply() {
        return reply;
    }

    /** The reply's {@code error} field ({@code 403::publish_denied}), or null. */
    public String error() {
        Object error = reply.get(Message.ERROR);
        return error == null ? null : error.toString();
    }
}
