package io.weft.server.internal;

import io.weft.server.api.Scheduler;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.SessionRegistry;
import io.weft.server.internal.util.Guard;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * One drain of a server ({@link io.weft.server.api.BayeuxServer#drain}): handshakes refused from the start, each client
 * session's moment spread over the window, the server closed at its end.
 *
 * <p>The spread: the sessions in a random order, the window cut into as many equal slots, each session a random moment
 * within its own slot. So the clients that come back elsewhere arrive at an even rate (one slot's worth at a time, never
 * a storm, as independent random moments could clump), and which session goes when is random. The moments are in
 * order, so one scheduler task at a time walks them: a drain of a hundred thousand sessions holds two arrays, not a
 * hundred thousand timers. The walk runs on the scheduler's thread only.
 */
final class Drain {
    private final SessionRegistry sessions;
    private final Scheduler scheduler;
    private final Guard guard;
    private final Runnable close;
    private SessionImpl[] order;
    private long[] due;
    private int next;

    Drain(SessionRegistry sessions, Scheduler scheduler, Guard guard, Runnable close) {
        this.sessions = sessions;
        this.scheduler = scheduler;
        this.guard = guard;
        this.close = close;
    }

    /** Starts: no client handshake is taken from now on; the sessions live now get their moments. */
    void start(long windowMillis, Random random) {
        // Before the snapshot: a handshake registered after it sees the flag and is refused (SessionRegistry.register).
        sessions.startDraining();
        List<SessionImpl> live = new ArrayList<>(sessions.size());
        for (SessionImpl session : sessions.sessions()) {
            if (!session.isLocal()) {
                live.add(session);
            }
        }
        Collections.shuffle(live, random);
        long start = scheduler.now();
        int count = live.size();
        order = live.toArray(new SessionImpl[0]);
        due = new long[count];
        for (int i = 0; i < count; i++) {
            due[i] = start + (long) (windowMillis * ((i + random.nextDouble()) / count));
        }
        synchronized (this) {
            if (count > 0) {
                scheduler.schedule(this::walk, due[0] - start);
            }
            scheduler.schedule(close, windowMillis);
        }
    }

    /** Drains every session whose moment has come, then waits for the next moment. */
    private synchronized void walk() {
        long now = scheduler.now();
        while (next < order.length && due[next] <= now) {
            SessionImpl session = order[next];
            order[next++] = null;
            try {
                sessions.drain(session);
            } catch (Throwable x) {
                guard.failed("draining " + session, x);
            }
        }
        if (next < order.length) {
            scheduler.schedule(this::walk, due[next] - now);
        }
    }
}
