package io.weft.server.api;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;

/**
 * Decides what clients may do: handshake, create channels, subscribe, publish. Installed with
 * {@link BayeuxServer#setSecurityPolicy}; {@link Authorizer}s on channels refine what it allows.
 *
 * <p>Called by the engine on the thread processing the client's message, before the action. Each question has a
 * synchronous form (override it for quick checks) and an asynchronous form, which by default calls the synchronous
 * one; a policy that must wait (a token checked by another service) overrides the asynchronous form and completes
 * the promise once, from any thread. A policy that throws or fails the promise denies, and is logged once.
 *
 * <p>The {@link #DEFAULT} policy allows everything except client access to {@code /meta/**} channels, which are the
 * protocol's own. Server-side code ({@link LocalSession}s and {@link ServerChannel#publish}) is not asked.
 */
public interface SecurityPolicy {
    /** Allows everything but client subscribes and publishes to {@code /meta/**}. */
    SecurityPolicy DEFAULT = new SecurityPolicy() { };

    /**
     * Whether a client may handshake. {@code handshake} is the {@code /meta/handshake} message, so a token sent in its
     * {@code ext} can be checked; {@code session} is the session about to be created (not yet live).
     */
    default boolean canHandshake(BayeuxServer server, ServerSession session, Message handshake) {
        return true;
    }

    default void canHandshake(BayeuxServer server, ServerSession session, Message handshake, Promise<Boolean> answer) {
        answer.succeed(canHandshake(server, session, handshake));
    }

    /**
     * Whether {@code session} may create {@code channel} by subscribing to it while it does not exist yet (nobody
     * subscribed, no server code created it): asked before {@link #canSubscribe} for such a channel. (Publishing does
     * not create channels.)
     */
    default boolean canCreate(BayeuxServer server, ServerSession session, ChannelId channel, Message message) {
        return true;
    }

    default void canCreate(BayeuxServer server, ServerSession session, ChannelId channel, Message message,
            Promise<Boolean> answer) {
        answer.succeed(canCreate(server, session, channel, message));
    }

    /** Whether {@code session} may subscribe to {@code channel}. */
    default boolean canSubscribe(BayeuxServer server, ServerSession session, ChannelId channel, Message message) {
        return !channel.isMeta();
    }

    default void canSubscribe(BayeuxServer server, ServerSession session, ChannelId channel, Message message,
            Promise<Boolean> answer) {
        answer.succeed(canSubscribe(server, session, channel, message));
    }

    /** Whether {@code session} may publish {@code message} to {@code channel}. */
    default boolean canPublish(BayeuxServer server, ServerSession session, ChannelId channel, Message message) {
        return !channel.isMeta();
    }

    default void canPublish(BayeuxServer server, ServerSession session, ChannelId channel, Message message,
            Promise<Boolean> answer) {
        answer.succeed(canPublish(server, session, channel, message));
    }
}
