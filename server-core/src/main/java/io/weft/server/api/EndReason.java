package io.weft.server.internal.session;

/** Why a session ended. */
public enum EndReason {
    /** The client sent {@code /meta/disconnect}. */
    DISCONNECTED,
    /** No {@code /meta/connect} arrived within interval + maxInterval. */
    TIMED_OUT,
    /** Server code called {@code ServerSession.disconnect()}. */
    SERVER_DISCONNECT,
    /** The session's queue overflowed under the disconnect policy. */
    QUEUE_FULL,
    /** The server is shutting down. */
    SERVER_CLOSED
}
