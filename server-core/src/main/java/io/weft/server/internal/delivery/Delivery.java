package io.weft.server.internal.delivery;

import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.internal.app.ExtensionChain;
import io.weft.server.internal.session.SessionImpl;

/**
 * Gives one message to one session: outgoing extensions (which may drop it, or change this recipient's copy), the
 * session's queue, and then a wake: collected for the end of the batch, scheduled for a lazy message, or at once.
 */
public final class Delivery {
    private final ExtensionChain extensions;

    public Delivery(ExtensionChain extensions) {
        this.extensions = extensions;
    }

    /**
     * @param from the publisher, or null for the server
     * @param lazyTimeout for a lazy message, how long it may wait for a reason to leave; negative for a normal one
     * @param wakes where to collect the session for a wake at the end of the batch; null to wake at once
     * @return whether the message was queued
     */
    public boolean deliver(SessionImpl to, SessionImpl from, MessageImpl message, long lazyTimeout, Wakes wakes) {
        MessageImpl outgoing = extensions.outgoing(from, to, message);
        if (outgoing == null || !to.enqueue(outgoing)) {
            return false;
        }
        if (lazyTimeout >= 0) {
            to.wakeWithin(lazyTimeout);
        } else if (wakes != null) {
            wakes.add(to);
        } else {
            to.wake();
        }
        return true;
    }
}
