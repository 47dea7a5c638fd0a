package io.weft.server.internal.session;

import io.weft.bayeux.internal.MessageImpl;
import java.util.function.Supplier;

/**
 * A {@code /meta/connect} the engine is holding: how to build its reply and the outlet that will carry it (its
 * timeout is the session's timer). The reply itself is built only when the hold ends, so that thousands of idle held connects cost little.
 * Guarded by the owning session's lock.
 */
final class HeldConnect {
    final Outlet outlet;
    private final Supplier<MessageImpl> reply;
    /** Whether queued messages leave with this reply (polling, or delivery on connect only) rather than pushed. */
    final boolean carriesQueue;
    /** The browser whose single held-poll slot this connect occupies, or null if it takes none. */
    final String browserSlot;

    HeldConnect(Outlet outlet, Supplier<MessageImpl> reply, boolean carriesQueue, String browserSlot) {
        this.outlet = outlet;
        this.reply = reply;
        this.carriesQueue = carriesQueue;
        this.browserSlot = browserSlot;
    }

    /** Builds the reply; called once, when the hold ends. */
    MessageImpl reply() {
        return reply.get();
    }
}
