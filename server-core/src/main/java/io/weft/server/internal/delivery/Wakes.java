package io.weft.server.internal.delivery;

import io.weft.server.internal.session.SessionImpl;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sessions that were given messages and whose transports have not been woken yet. A batch of publishes collects its
 * sessions here and wakes each once at the end, so ten messages published in one request leave in one response or
 * frame per subscriber, not ten. Not thread-safe: one belongs to one batch.
 */
public final class Wakes {
    private static final Logger LOG = LoggerFactory.getLogger(Wakes.class);

    private Set<SessionImpl> sessions;

    public void add(SessionImpl session) {
        if (sessions == null) {
            sessions = Collections.newSetFromMap(new IdentityHashMap<>());
        }
        sessions.add(session);
    }

    /** Wakes every collected session once, and forgets them. */
    public void wakeAll() {
        Set<SessionImpl> toWake = sessions;
        sessions = null;
        if (toWake != null) {
            for (SessionImpl session : toWake) {
                try {
                    session.wake();
                } catch (Throwable x) {
                    // A transport's bug must not keep the batch's other sessions asleep.
                    LOG.warn("waking {} failed", session, x);
                }
            }
        }
    }
}
