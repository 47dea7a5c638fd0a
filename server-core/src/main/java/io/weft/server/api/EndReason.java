package io.weft.server.api;

/** Why a session ended, as {@link BayeuxServer.SessionListener#sessionRemoved} is told. */
public enum EndReason {
    /** The client sent {@code /meta/disconnect}. */
    DISCONNECTED,
    /** No {@code /meta/connect} arrived within interval + maxInterval: the client went away. */
    TIMED_OUT,
    /** Server code called {@link ServerSession#disconnect()}. */
    SERVER_DISCONNECT,
    /** The session's queue overflowed under the {@link ServerOptions.OverflowPolicy#DISCONNECT} policy. */
    QUEUE_FULL,
    /** The server is shutting down. */
    SERVER_CLOSED,
    /**
     * The server is draining ({@link BayeuxServer#drain}): the client was told to handshake again, through its load
     * balancer, on another node.
     */
    DRAINED
}
