package io.weft.server.api;

import java.util.Set;

/**
 * The server's view of one Bayeux client: created by a successful {@code /meta/handshake}, ended by
 * {@code /meta/disconnect}, by expiry ({@code maxInterval} without a {@code /meta/connect}), or by the server.
 *
 * <p>Obtained from {@link BayeuxServer#getSession(String)} and from the engine's callbacks; never constructed by
 * applications. Thread-safe: any method may be called from any thread.
 */
public interface ServerSession {
    /** The clientId: at least 128 random bits, URL-safe. */
    String getId();

    /** Whether the session is alive: handshaken and not yet ended. */
    boolean isConnected();

    /** The connection type of the latest {@code /meta/connect} ({@code websocket}, {@code long-polling}, …), or null. */
    String getConnectionType();

    /** The channels this session is subscribed to, a snapshot. */
    Set<ServerChannel> getSubscriptions();

    /** How many messages wait in this session's queue. */
    int getQueueSize();

    /** How many messages this session's queue has dropped because it was full. */
    long getDroppedMessages();

    /**
     * Ends the session from the server: the client receives {@code /meta/disconnect} (with its held
     * {@code /meta/connect} answered with advice {@code reconnect: none}) if it is reachable, and is forgotten.
     */
    void disconnect();
}
