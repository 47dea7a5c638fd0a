package io.weft.server.internal.session;

import io.weft.server.api.ServerChannel;

/**
 * A channel as a session holds it among its subscriptions: what the session needs to leave it when it ends. The
 * channel tree's nodes are the only implementation; the session package knows them only through this, so that
 * sessions sit below the channel tree (which holds sessions as subscribers), not beside it.
 */
public interface Subscription extends ServerChannel {
    /** Forgets {@code session} as a subscriber. @return whether it was one */
    boolean removeSubscriber(SessionImpl session);

    /** What {@link SessionImpl#addSubscription} came to. */
    enum Outcome {
        ADDED,
        /** The session was subscribed already. */
        ALREADY,
        /** The session holds {@code maxSubscriptions} already. */
        FULL,
        /** The session has ended. */
        ENDED
    }
}
