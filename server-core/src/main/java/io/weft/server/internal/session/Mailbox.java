package io.weft.server.internal.session;

import io.weft.bayeux.Message;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.Limit;
import io.weft.server.api.Scheduler;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.reply.Advice;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A session's bounded queue and the connect state machine that every transport shares.
 *
 * <pre>
 *            connect, nothing queued               delivery (carrying outlet) / timeout
 *   IDLE  ----------------------------&gt;  HELD  ------------------------------------------&gt;  IDLE
 *    |  ^      (persistent: even if queued)         reply = queued messages + connect reply,
 *    |  |                                           expiry armed at interval + maxInterval
 *    |  +-- connect with messages queued, timeout 0, or not alone in its request: answered at once
 *    +-- no connect before expiry --&gt; ENDED (timed out)
 * </pre>
 *
 * All state is guarded by {@code this}. Calls out (outlets, the reply hook, the registry's removal) happen after the
 * lock is released; the only lock ever taken inside is the registry's browser-slot map.
 */
final class Mailbox {
    private final SessionImpl session;
    private final SessionRegistry registry;
    private final ServerOptions options;
    private final Scheduler scheduler;

    private boolean alive = true;
    private String connectionType;
    private ArrayDeque<Message> queue;
    private long dropped;
    private HeldConnect held;
    private Outlet push;
    /** The session's eventsource stream, if one is open; a {@code /meta/connect} of that type is held on it. */
    private Outlet stream;
    private final SessionTimer timer;
    private Scheduler.Task lazyWake;
    private long lazyDue;

    Mailbox(SessionImpl session, SessionRegistry registry) {
        this.session = session;
        this.registry = registry;
        this.options = registry.options();
        this.scheduler = registry.scheduler();
        this.timer = new SessionTimer(scheduler, this::timerFired);
    }

    synchronized String connectionType() {
        return connectionType;
    }

    /** Whether a {@code /meta/connect} is held now. */
    synchronized boolean holding() {
        return held != null;
    }

    synchronized int size() {
        return queue == null ? 0 : queue.size();
    }

    synchronized long dropped() {
        return dropped;
    }

    /** What {@link #offer} did. */
    enum Offer { QUEUED, ENDED, OVERFLOWED }

    /** Queues a message, dropping the oldest if full and the policy says so; wakes nothing. */
    synchronized Offer offer(Message message) {
        if (!alive) {
            return Offer.ENDED;
        }
        if (queue == null) {
            queue = new ArrayDeque<>(8);
        }
        if (queue.size() >= options.maxQueue()) {
            dropped++;
            registry.refusals().count(Limit.QUEUE);
            if (options.queueOverflow() == ServerOptions.OverflowPolicy.DISCONNECT) {
                return Offer.OVERFLOWED;
            }
            queue.pollFirst();
        }
        queue.addLast(message);
        return Offer.QUEUED;
    }

    /**
     * Puts messages back at the head of the queue, in order (the ack extension re-sending a lost batch), within
     * {@code maxQueue}: what does not fit is the oldest, and is dropped and counted. A replay never disconnects the
     * session, whatever the overflow policy: the client is keeping up, it only lost a reply.
     */
    synchronized void requeueFront(List<Message> messages) {
        if (!alive || messages.isEmpty()) {
            return;
        }
        if (queue == null) {
            queue = new ArrayDeque<>(Math.min(messages.size(), options.maxQueue()) + 8);
        }
        int room = Math.max(0, options.maxQueue() - queue.size());
        int skip = Math.max(0, messages.size() - room);
        if (skip > 0) {
            dropped += skip;
            registry.refusals().count(Limit.QUEUE, skip);
        }
        for (int i = messages.size() - 1; i >= skip; i--) {
            queue.addFirst(messages.get(i));
        }
        registry.counters().resent(messages.size() - skip);
    }

    boolean full() {
        return size() >= options.maxQueue();
    }

    /**
     * Answers a held {@code /meta/connect} that carries the queue, or lets a persistent connection push.
     */
    void wake() {
        HeldConnect resumed = null;
        List<Message> out = null;
        Outlet pusher = null;
        synchronized (this) {
            cancelLazyWake();
            if (!alive || queue == null || queue.isEmpty()) {
                return;
            }
            if (held != null && held.carriesQueue) {
                resumed = takeHeld();
                out = drainWith(resumed.reply());
                armExpiry(session.getInterval() + session.getMaxInterval());
            } else if (push != null && !session.isMetaConnectDeliveryOnly()) {
                pusher = push;
            }
        }
        if (resumed != null) {
            releaseSlot(resumed);
            registry.beforeConnectReply(session, out);
            resumed.outlet.deliver(out);
        } else if (pusher != null) {
            pusher.wake();
        }
    }

    /** Wakes within {@code delayMillis} unless something wakes sooner: the lazy messages' deadline. */
    void wakeWithin(long delayMillis) {
        synchronized (this) {
            long due = scheduler.now() + delayMillis;
            if (!alive || (lazyWake != null && lazyDue <= due)) {
                return;
            }
            cancelLazyWake();
            lazyDue = due;
            lazyWake = scheduler.schedule(this::wake, delayMillis);
        }
    }

    private void cancelLazyWake() {
        if (lazyWake != null) {
            lazyWake.cancel();
            lazyWake = null;
        }
    }

    synchronized List<Message> drainForPush(Outlet outlet, int max) {
        if (!alive || push != outlet || session.isMetaConnectDeliveryOnly() || queue == null || queue.isEmpty()) {
            return List.of();
        }
        int count = Math.min(max, queue.size());
        List<Message> messages = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            messages.add(queue.pollFirst());
        }
        return messages;
    }

    ConnectOutcome connect(ConnectRequest request) {
        HeldConnect replaced;
        ConnectOutcome outcome;
        synchronized (this) {
            if (!alive) {
                return null;
            }
            connectionType = request.connectionType();
            replaced = takeHeld();
            if (replaced != null) {
                // Free the browser's slot before this connect asks for it: it replaces, it is not another tab.
                releaseSlot(replaced);
            }
            push = request.persistent() ? request.outlet() : null;
            boolean queued = queue != null && !queue.isEmpty();
            boolean carries = !request.persistent() || session.isMetaConnectDeliveryOnly();
            boolean hold = request.holdMillis() > 0 && request.mayHold() && !(carries && queued);
            String slot = null;
            boolean multipleClients = false;
            if (hold && !request.persistent() && request.browserId() != null) {
                if (registry.acquireBrowserSlot(request.browserId())) {
                    slot = request.browserId();
                } else {
                    hold = false;
                    multipleClients = true;
                }
            }
            if (hold) {
                held = new HeldConnect(request.outlet(), request.reply(), carries, slot);
                timer.arm(SessionTimer.Kind.HOLD, request.holdMillis());
                outcome = ConnectOutcome.HELD;
            } else {
                MessageImpl reply = request.reply().get();
                if (multipleClients) {
                    Advice.multipleClients(options.multiSessionInterval()).applyTo(reply);
                }
                List<Message> out = carries ? drainWith(reply) : new ArrayList<>(List.of(reply));
                long wait = multipleClients ? options.multiSessionInterval() : session.getInterval();
                armExpiry(wait + session.getMaxInterval());
                outcome = new ConnectOutcome(out, multipleClients);
            }
        }
        if (replaced != null) {
            // The client gave up on its previous connect: answer it with its bare reply, keeping queued messages
            // for the new one.
            List<Message> bare = new ArrayList<>(List.of(replaced.reply()));
            registry.beforeConnectReply(session, bare);
            replaced.outlet.deliver(bare);
        }
        if (!outcome.isHeld()) {
            registry.beforeConnectReply(session, outcome.messages());
        }
        return outcome;
    }

    /**
     * The session's timer ran (scheduler thread): a held connect's timeout, or the session's expiry, may be due. An
     * expiry is decided and the mailbox ended under one lock, so that a {@code /meta/connect} arriving at the same
     * moment either comes first (and the session lives on) or finds it ended (and is told to handshake): it is never
     * held by a session that is about to end, which would answer a live client {@code reconnect: none}.
     */
    private void timerFired(long generation) {
        HeldConnect timedOut = null;
        List<Message> out = null;
        Ended expired = null;
        synchronized (this) {
            if (!alive) {
                return;
            }
            SessionTimer.Kind due = timer.fired(generation);
            if (due == SessionTimer.Kind.HOLD && held != null) {
                timedOut = takeHeld();
                out = timedOut.carriesQueue ? drainWith(timedOut.reply()) : new ArrayList<>(List.of(timedOut.reply()));
                armExpiry(session.getInterval() + session.getMaxInterval());
            } else if (due == SessionTimer.Kind.EXPIRY && held == null) {
                expired = end();
            }
        }
        if (timedOut != null) {
            releaseSlot(timedOut);
            registry.beforeConnectReply(session, out);
            timedOut.outlet.deliver(out);
        } else if (expired != null) {
            registry.expired(session, expired);
        }
    }

    void detach(Outlet outlet) {
        HeldConnect dropped = null;
        synchronized (this) {
            if (!alive) {
                return;
            }
            if (push == outlet) {
                push = null;
            }
            if (stream == outlet) {
                stream = null;
            }
            if (held != null && held.outlet == outlet) {
                dropped = takeHeld();
                armExpiry(session.getMaxInterval());
            }
        }
        if (dropped != null) {
            releaseSlot(dropped);
        }
    }

    /**
     * Makes {@code outlet} the session's stream, and the outlet that pushes its queue (until a connect of another
     * type says otherwise); returns the stream it replaces, which the caller closes, or null. Does nothing to an
     * ended session (returns {@code outlet} itself, to be closed).
     */
    synchronized Outlet attachStream(Outlet outlet) {
        if (!alive) {
            return outlet;
        }
        Outlet previous = stream;
        stream = outlet;
        push = outlet;
        return previous;
    }

    synchronized Outlet stream() {
        return stream;
    }

    synchronized void handshaken(Outlet outlet, boolean persistent) {
        if (persistent) {
            push = outlet;
        }
        armExpiry(session.getInterval() + session.getMaxInterval());
    }

    /** Takes the held connect, if any; the caller gives the timer its next deadline. */
    private HeldConnect takeHeld() {
        HeldConnect connect = held;
        held = null;
        return connect;
    }

    private void releaseSlot(HeldConnect connect) {
        if (connect.browserSlot != null) {
            registry.releaseBrowserSlot(connect.browserSlot);
        }
    }

    private List<Message> drainWith(MessageImpl reply) {
        int size = queue == null ? 0 : queue.size();
        List<Message> out = new ArrayList<>(size + 1);
        for (int i = 0; i < size; i++) {
            out.add(queue.pollFirst());
        }
        out.add(reply);
        return out;
    }

    private void armExpiry(long delay) {
        if (session.isLocal()) {
            timer.disarm();
        } else {
            timer.arm(SessionTimer.Kind.EXPIRY, delay);
        }
    }

    /** Ends the mailbox; returns the held connect and pushing outlet the caller must tell, or null if already ended. */
    synchronized Ended end() {
        if (!alive) {
            return null;
        }
        alive = false;
        timer.stop();
        cancelLazyWake();
        Ended ended = new Ended(takeHeld(), push, stream);
        push = null;
        stream = null;
        queue = null;
        return ended;
    }

    void released(Ended ended) {
        if (ended.held() != null) {
            releaseSlot(ended.held());
        }
    }

    record Ended(HeldConnect held, Outlet push, Outlet stream) {
    }
}
