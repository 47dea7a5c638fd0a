package io.weft.server.api;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import java.util.List;
import java.util.Set;

/**
 * A channel as the server holds it: a node of the channel tree with its subscribers, listeners and authorizers.
 * Wildcard channels ({@code /chat/*}, {@code /chat/**}) are channels too; a session subscribed to one receives every
 * message published to a channel it matches, once, however many of its subscriptions match.
 *
 * <p>Obtained from {@link BayeuxServer#getChannel(String)} or {@link BayeuxServer#createChannelIfAbsent}; never
 * constructed by applications. A channel that is not {@linkplain #setPersistent persistent} is removed after a few
 * sweeps without subscribers, listeners, authorizers or children; hold the id, not the object, or make it
 * persistent. Thread-safe.
 */
public interface ServerChannel {
    ChannelId getChannelId();

    default String getId() {
        return getChannelId().id();
    }

    /** The sessions subscribed to exactly this channel, a snapshot. */
    Set<ServerSession> getSubscribers();

    /**
     * Subscribes a session, as a {@code /meta/subscribe} would but without asking the security policy.
     *
     * @return whether the session was not already subscribed; false also when the session has ended
     */
    boolean subscribe(ServerSession session);

    /** @return whether the session was subscribed */
    boolean unsubscribe(ServerSession session);

    /**
     * Publishes from server code: the message goes through this channel's message listeners (and its wildcards'),
     * then to every subscriber, without asking the security policy. Must be a broadcast or service channel.
     *
     * @param from the publishing session, or null for the server itself
     * @param data a JSON value (see {@link Message})
     */
    default void publish(ServerSession from, Object data) {
        publish(from, data, Promise.noop());
    }

    /** As {@link #publish(ServerSession, Object)}; {@code delivered} is told whether it was delivered or vetoed. */
    void publish(ServerSession from, Object data, Promise<Boolean> delivered);

    /** A channel that is never swept, even unused. */
    boolean isPersistent();

    void setPersistent(boolean persistent);

    /**
     * A lazy channel's messages are queued without waking a held {@code /meta/connect}: they leave at the first of
     * the channel's lazy timeout, the connect's timeout, or a non-lazy message for the same session.
     */
    boolean isLazy();

    void setLazy(boolean lazy);

    /** The lazy timeout of this channel in milliseconds; by default {@link ServerOptions#maxLazyTimeout()}. */
    long getLazyTimeout();

    void setLazyTimeout(long millis);

    /** Whether a subscriber receives its own publishes here; by default {@link ServerOptions#broadcastToPublisher()}. */
    boolean isBroadcastToPublisher();

    void setBroadcastToPublisher(boolean broadcastToPublisher);

    /**
     * The history this channel keeps: its own if set, else the first of {@link ServerOptions#history()} that covers
     * it; null for none (and always for {@code /meta/*}, {@code /service/*} and wildcard channels).
     */
    HistoryRule getHistory();

    /**
     * Makes this broadcast channel keep a history by {@code rule} (whose pattern need not match: the rule's size, ttl
     * and bytes apply), or by the options again with null. Set it on a persistent channel: a swept channel forgets it.
     *
     * @throws IllegalArgumentException if this is not a concrete broadcast channel
     */
    void setHistory(HistoryRule rule);

    void addListener(Listener listener);

    void removeListener(Listener listener);

    List<Listener> getListeners();

    void addAuthorizer(Authorizer authorizer);

    void removeAuthorizer(Authorizer authorizer);

    List<Authorizer> getAuthorizers();

    /** Marker for the listeners a channel accepts. */
    interface Listener {
    }

    /**
     * Sees each message published to this channel (or, on a wildcard channel, to any channel it covers) before it
     * is delivered, and may change it or veto it: returning false deletes it, and the publisher gets
     * {@code 404::message_deleted}. Listeners run on the publisher's thread, the exact channel's first, then the
     * wildcards' from the most specific; they must not block (see {@link AsyncMessageListener}). A listener that
     * throws is logged once and skipped.
     */
    @FunctionalInterface
    interface MessageListener extends Listener {
        /**
         * @param from the publisher's session, or null when server code publishes
         * @param channel the channel this listener was added to
         * @param message the message, still mutable
         * @return false to veto the message
         */
        boolean onMessage(ServerSession from, ServerChannel channel, Message.Mutable message);
    }

    /** The asynchronous form of {@link MessageListener}, for listeners that must wait; complete the promise once. */
    @FunctionalInterface
    interface AsyncMessageListener extends Listener {
        void onMessage(ServerSession from, ServerChannel channel, Message.Mutable message, Promise<Boolean> proceed);
    }

    /** Told when sessions subscribe to or unsubscribe from this channel, on the thread that did it. */
    interface SubscriptionListener extends Listener {
        /** @param message the {@code /meta/subscribe} message, or null when server code subscribed */
        default void subscribed(ServerSession session, ServerChannel channel, Message message) {
        }

        /** @param message the {@code /meta/unsubscribe} message, or null (server code, or the session ended) */
        default void unsubscribed(ServerSession session, ServerChannel channel, Message message) {
        }
    }
}
