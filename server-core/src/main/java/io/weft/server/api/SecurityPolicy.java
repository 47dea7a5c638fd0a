package io.weft.server.api;

/**
 * Decides what clients may do. Called by the engine on the thread processing the client's message, before the
 * action; a policy must answer quickly and must not block. A policy that throws is treated as a denial and logged.
 *
 * <p>The {@link #DEFAULT} policy allows everything except client access to {@code /meta/**} channels (which are the
 * protocol's own): no subscribing to them, no publishing to them.
 */
public interface SecurityPolicy {
    /** Allows everything but client subscribes and publishes to {@code /meta/**}. */
    SecurityPolicy DEFAULT = new SecurityPolicy() { };

    /**
     * Whether a client may handshake. {@code handshake} is the {@code /meta/handshake} message, so a token sent in its
     * {@code ext} can be checked; {@code session} is the session about to be created.
     */
    default boolean canHandshake(BayeuxServer server, ServerSession session, Message handshake) {
        return true;
    }

    /** Whether {@code session} may subscribe to {@code channel}. */
    default boolean canSubscribe(BayeuxServer server, ServerSession session, ChannelId channel, Message message) {
        return !channel.isMeta();
    }

    /** Whether {@code session} may publish {@code message} to {@code channel}. */
    default boolean canPublish(BayeuxServer server, ServerSession session, ChannelId channel, Message message) {
        return !channel.isMeta();
    }
}
