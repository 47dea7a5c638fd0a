package io.weft.server.api;

import java.util.Set;

/**
 * A channel as the server holds it: a node of the channel tree with its subscribers. Wildcard channels
 * ({@code /chat/*}, {@code /chat/**}) are channels too; a session subscribed to one receives every message published
 * to a channel it matches, once, however many of its subscriptions match.
 *
 * <p>Obtained from {@link BayeuxServer#getChannel(String)} or {@link BayeuxServer#createChannelIfAbsent(String)}.
 * Thread-safe.
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
}
