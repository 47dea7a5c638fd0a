package io.weft.bayeux;

import java.util.Objects;

/**
 * A Bayeux error, as it travels in a reply's {@code error} field: {@code code:args:message}, for example
 * {@code 402::session_unknown} or {@code 403:not a member:publish_denied}.
 *
 * <p>The constants are the closed set the engine answers with; their strings are the ones the official CometD
 * clients know. {@link #withReason(String)} adds the middle part, as authorizers do to say why.
 */
public record BayeuxError(int code, String reason, String message) {
    /** The clientId is unknown, expired, or presented by another browser; the client must handshake again. */
    public static final BayeuxError SESSION_UNKNOWN = new BayeuxError(402, null, "session_unknown");
    public static final BayeuxError CHANNEL_MISSING = new BayeuxError(400, null, "channel_missing");
    public static final BayeuxError CHANNEL_INVALID = new BayeuxError(405, null, "channel_invalid");
    /** A batch element that is not a JSON object, or a field of the wrong JSON type. */
    public static final BayeuxError MESSAGE_INVALID = new BayeuxError(400, null, "message_invalid");
    public static final BayeuxError SUBSCRIPTION_MISSING = new BayeuxError(400, null, "subscription_missing");
    public static final BayeuxError HANDSHAKE_DENIED = new BayeuxError(403, null, "handshake_denied");
    public static final BayeuxError CREATE_DENIED = new BayeuxError(403, null, "create_denied");
    public static final BayeuxError SUBSCRIBE_DENIED = new BayeuxError(403, null, "subscribe_denied");
    public static final BayeuxError PUBLISH_DENIED = new BayeuxError(403, null, "publish_denied");
    public static final BayeuxError MESSAGE_DELETED = new BayeuxError(404, null, "message_deleted");
    /** The session was disconnected by the server because its queue overflowed (slow consumer). */
    public static final BayeuxError QUEUE_FULL = new BayeuxError(408, null, "queue_full");
    /**
     * A bound on what a client may make the server hold was reached; the reason names the server option that sets
     * it, as in {@code 429:maxSessionsPerAddress:limit_exceeded}.
     */
    public static final BayeuxError LIMIT_EXCEEDED = new BayeuxError(429, null, "limit_exceeded");
    /** The server failed to handle the message (a bug, or an application callback that failed): logged there. */
    public static final BayeuxError SERVER_ERROR = new BayeuxError(500, null, "server_error");
    /** A service ({@code /service/*}) failed to answer. */
    public static final BayeuxError SERVICE_FAILED = new BayeuxError(500, null, "service_failed");
    /** The server is closing: the client should handshake again, with another node if there is one. */
    public static final BayeuxError SERVER_CLOSING = new BayeuxError(503, null, "server_closing");
    /** The cluster's history store could not keep a publish on a channel with history, or be read. */
    public static final BayeuxError HISTORY_UNAVAILABLE = new BayeuxError(503, null, "history_unavailable");
    /**
     * The server is draining ({@code BayeuxServer.drain}): the client should handshake again, through its load
     * balancer, which sends it to another node.
     */
    public static final BayeuxError SERVER_DRAINING = new BayeuxError(503, null, "server_draining");

    public BayeuxError {
        Objects.requireNonNull(message, "message");
        if (code < 100 || code > 999) {
            throw new IllegalArgumentException("code must have three digits: " + code);
        }
    }

    /** The same error with {@code reason} as its middle part: {@code 403:<reason>:publish_denied}. */
    public BayeuxError withReason(String reason) {
        return new BayeuxError(code, reason, message);
    }


    /** The wire form, {@code code:reason:message}. */
    @Override
    public String toString() {
        return code + ":" + (reason == null ? "" : reason) + ":" + message;
    }
}
