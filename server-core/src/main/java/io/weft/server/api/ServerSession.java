package io.weft.server.api;

import io.weft.bayeux.Message;
import java.util.Set;

/**
 * The server's view of one Bayeux client: created by a successful {@code /meta/handshake} (or by a
 * {@link LocalSession}), ended by {@code /meta/disconnect}, by expiry ({@code maxInterval} without a
 * {@code /meta/connect}), or by the server.
 *
 * <p>Obtained from {@link BayeuxServer#getSession(String)} and from the engine's callbacks; never constructed by
 * applications. Thread-safe: any method may be called from any thread. Listeners added here are called on the thread
 * that caused the event and must not block.
 */
public interface ServerSession {
    /** The clientId: at least 128 random bits, URL-safe. */
    String getId();

    /** Whether the session is alive: handshaken and not yet ended. */
    boolean isConnected();

    /** Whether this is the server side of a {@link LocalSession}. */
    boolean isLocal();

    /**
     * What the HTTP request that created this session carried (the handshake's request, or over websocket the
     * upgrade request of the socket that carried the handshake): headers, cookies, the client's address, the
     * authenticated user, the HTTP session. Null for a {@link LocalSession} and for transports without HTTP.
     */
    ClientRequest getRequest();

    /** The connection type of the latest {@code /meta/connect} ({@code websocket}, {@code long-polling}, …), or null. */
    String getConnectionType();

    /** The channels this session is subscribed to, a snapshot. */
    Set<ServerChannel> getSubscriptions();

    /** How many messages wait in this session's queue. */
    int getQueueSize();

    /** How many messages this session's queue has dropped because it was full. */
    long getDroppedMessages();

    /**
     * Sends a message to this session only: no channel listeners, no other subscribers, but outgoing extensions run.
     * The client receives it on {@code channel} whether or not it subscribed there.
     *
     * @param from the sending session, or null for the server
     */
    void deliver(ServerSession from, String channel, Object data);

    /** As {@link #deliver(ServerSession, String, Object)}, with a whole message (its {@code channel} must be set). */
    void deliver(ServerSession from, Message.Mutable message);

    /**
     * Ends the session from the server: the client receives {@code /meta/disconnect} (with its held
     * {@code /meta/connect} answered with advice {@code reconnect: none}) if it is reachable, and is forgotten.
     */
    void disconnect();

    /** Adds an extension for this session's messages only; see {@link Extension} for the order. */
    void addExtension(Extension extension);

    void removeExtension(Extension extension);

    void addListener(Listener listener);

    void removeListener(Listener listener);

    /** An application attribute of this session, or null. */
    Object getAttribute(String name);

    /** Sets an attribute; {@code null} removes it. */
    void setAttribute(String name, Object value);

    Object removeAttribute(String name);

    Set<String> getAttributeNames();

    /** This session's {@code /meta/connect} timeout in ms: its own if set, else the server's. */
    long getTimeout();

    /** Sets this session's timeout; a negative value goes back to the server's. Advised on the next connect. */
    void setTimeout(long millis);

    long getInterval();

    void setInterval(long millis);

    long getMaxInterval();

    void setMaxInterval(long millis);

    /** Whether messages reach this client only with {@code /meta/connect} replies (set by the ack extension). */
    boolean isMetaConnectDeliveryOnly();

    void setMetaConnectDeliveryOnly(boolean deliveryOnly);

    /**
     * Acknowledged delivery, the engine's side of an acknowledgement extension (Weft's
     * {@link io.weft.server.ext.AcknowledgedMessagesExtension} is one): from now on this session's messages leave only
     * with {@code /meta/connect} replies, each such reply numbers the batch it carries in {@code ext.ack} (from 1),
     * and every batch is kept, up to {@link ServerOptions#maxUnacknowledged()} messages, until the client
     * {@link #acknowledge acknowledges} it. Cannot be turned off; calling it again changes nothing.
     */
    void enableAcknowledgedDelivery();

    /** Whether {@link #enableAcknowledgedDelivery()} was called. */
    boolean isAcknowledgedDelivery();

    /**
     * The client has received every batch up to {@code lastBatch}: those are forgotten, and the messages of any later
     * batch (its reply was lost) are queued again, ahead of anything newer, to leave with the next
     * {@code /meta/connect} reply. Called for the {@code /meta/connect} that carries the acknowledgement, before it is
     * handled: a connect the session still has held is answered at once, without messages, since the client gave it
     * up. Does nothing unless acknowledged delivery is on.
     */
    void acknowledge(long lastBatch);

    /**
     * Runs {@code batch} with this session's transport woken once at the end, so that what it delivers leaves in
     * one response or frame. Batches nest.
     */
    void batch(Runnable batch);

    /** Marker for the listeners a session accepts. */
    interface Listener {
    }

    /** Told after a message is added to this session's queue, on the delivering thread. */
    @FunctionalInterface
    interface QueueListener extends Listener {
        void queued(ServerSession session, Message message);
    }

    /**
     * Told when a message arrives for this session and its queue is full, before the overflow policy applies (the
     * oldest message is dropped, or the session disconnected).
     */
    @FunctionalInterface
    interface QueueFullListener extends Listener {
        void queueFull(ServerSession session, Message message);
    }

    /** Told once when this session ends, and why. */
    @FunctionalInterface
    interface RemovedListener extends Listener {
        void removed(ServerSession session, EndReason reason);
    }
}
