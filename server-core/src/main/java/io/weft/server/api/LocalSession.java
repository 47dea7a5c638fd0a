package io.weft.server.api;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;

/**
 * A Bayeux client inside the server's JVM: server-side services (a chat room's member list, a bot, a bridge) use
 * one to handshake, subscribe and publish exactly like a remote client, without a network and without JSON. It
 * passes through the same engine (extensions, listeners, fan-out) but not the security policy, and its session never
 * expires.
 *
 * <p>Created by {@link BayeuxServer#newLocalSession(String)}. Methods may be called from any thread; each completes
 * its promise with the server's reply (successful or not) once, usually before returning. Listeners are called on
 * the thread that delivers the message (often the publisher's) and must not block.
 */
public interface LocalSession {
    String getName();

    /** Handshakes; the reply is {@code /meta/handshake}'s. Calling it again on a live session does nothing. */
    void handshake(Promise<Message> reply);

    default void handshake() {
        handshake(Promise.noop());
    }

    /** Whether the session is live. */
    boolean isConnected();

    /** The server side of this client, or null before the handshake. */
    ServerSession getServerSession();

    /** Subscribes {@code listener} to {@code channel} (wildcards allowed). */
    void subscribe(String channel, MessageListener listener, Promise<Message> reply);

    default void subscribe(String channel, MessageListener listener) {
        subscribe(channel, listener, Promise.noop());
    }

    /** Removes every listener of {@code channel} and unsubscribes. */
    void unsubscribe(String channel, Promise<Message> reply);

    default void unsubscribe(String channel) {
        unsubscribe(channel, Promise.noop());
    }

    /** Publishes {@code data} to {@code channel}; the reply says whether it was accepted. */
    void publish(String channel, Object data, Promise<Message> reply);

    default void publish(String channel, Object data) {
        publish(channel, data, Promise.noop());
    }

    /** Ends the session. */
    void disconnect();

    /** Receives the messages of a subscription. */
    @FunctionalInterface
    interface MessageListener {
        void onMessage(Message message);
    }
}
