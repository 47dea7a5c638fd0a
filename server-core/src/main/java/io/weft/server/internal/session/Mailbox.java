package io.weft.server.internal.session;

import io.weft.bayeux.Message;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.Limit;
import io.weft.server.api.Scheduler;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.reply.Advice;
import io.weft.server.spi.History;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
 * lock is released; the only locks ever taken inside are the registry's browser-slot map and the session's
 * {@link AckTracker} (numbering a batch), neither of which takes this one.
 */
final class Mailbox {
    /** The {@code ext} field of a {@code /meta/connect} reply that numbers its batch for the ack extension. */
    static final String ACK = "ack";

    private final SessionImpl session;
    private final SessionRegistry registry;
    private final ServerOptions options;
    private final Scheduler scheduler;

    private boolean alive = true;
    private String connectionType;
    private ArrayDeque<Message> queue;
    /** The bytes of what {@link #queue} holds, as {@link SessionRegistry#sizeOf} counts them. */
    private long queuedBytes;
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

    synchronized long bytes() {
        return queuedBytes;
    }

    synchronized long dropped() {
        return dropped;
    }

    /** What {@link #offer} did. */
    enum Offer { QUEUED, ENDED, OVERFLOWED }

    /**
     * Queues a message of {@code size} bytes. If the queue would then pass {@code maxQueue} messages or
     * {@code maxQueueBytes} bytes, the overflow policy applies: the oldest are dropped until it fits (each counted),
     * or nothing is queued and the caller disconnects the session. A message larger than {@code maxQueueBytes} is
     * still queued alone. Wakes nothing.
     */
    synchronized Offer offer(Message message, int size) {
        if (!alive) {
            return Offer.ENDED;
        }
        if (queue == null) {
            queue = new ArrayDeque<>(8);
        }
        Limit over;
        while ((over = overflow(size)) != null) {
            dropped++;
            registry.refusals().count(over);
            if (options.queueOverflow() == ServerOptions.OverflowPolicy.DISCONNECT) {
                return Offer.OVERFLOWED;
            }
            forget(queue.pollFirst());
        }
        queue.addLast(message);
        queuedBytes += size;
        return Offer.QUEUED;
    }

    /** The bound a message of {@code size} bytes would pass if queued now, or null. */
    private Limit overflow(int size) {
        if (queue == null || queue.isEmpty()) {
            return null;
        }
        if (queue.size() >= options.maxQueue()) {
            return Limit.QUEUE;
        }
        return queuedBytes + size > options.maxQueueBytes() ? Limit.QUEUE_BYTES : null;
    }

    /** A message left the queue unsent: its bytes are given back. */
    private void forget(Message message) {
        queuedBytes -= registry.sizeOf(message);
    }

    /**
     * Puts messages back at the head of the queue, in order (the ack extension re-sending a lost batch), within
     * {@code maxQueue} and {@code maxQueueBytes}: what does not fit is the oldest, and is dropped and counted. A replay
     * never disconnects the session, whatever the overflow policy: the client is keeping up, it only lost a reply.
     */
    synchronized void requeueFront(List<Message> messages) {
        if (!alive || messages.isEmpty()) {
            return;
        }
        if (queue == null) {
            queue = new ArrayDeque<>(Math.min(messages.size(), options.maxQueue()) + 8);
        }
        int i = messages.size() - 1;
        for (; i >= 0; i--) {
            Message message = messages.get(i);
            int size = registry.sizeOf(message);
            if (overflow(size) != null) {
                break;
            }
            queue.addFirst(message);
            queuedBytes += size;
        }
        int requeued = messages.size() - 1 - i;
        if (i >= 0) {
            registry.refusals().count(queue.size() >= options.maxQueue() ? Limit.QUEUE : Limit.QUEUE_BYTES, i + 1);
            dropped += i + 1;
        }
        registry.counters().resent(requeued);
    }

    /**
     * The client's acknowledgement, carried by its new {@code /meta/connect}: batches up to {@code lastBatch} are
     * forgotten and the messages of later ones queued again at the head ({@link #requeueFront}). A connect still held
     * for the session is taken under the same lock and answered bare: the client sent a new one, so it gave that one
     * up and will not read its answer. Left held until the new connect replaces it, a wake in between would answer it
     * with a batch numbered after this acknowledgement, which the client's next one would then acknowledge unread.
     */
    void acknowledge(AckTracker acks, long lastBatch) {
        HeldConnect abandoned;
        List<Message> bare = null;
        synchronized (this) {
            requeueFront(acks.acknowledge(lastBatch));
            abandoned = alive ? takeHeld() : null;
            if (abandoned != null) {
                releaseSlot(abandoned);
                bare = bareAnswer(abandoned);
                armExpiry(session.getInterval() + session.getMaxInterval());
            }
        }
        if (abandoned != null) {
            answer(abandoned, bare);
        }
    }

    /** Whether a message of {@code size} bytes would find the queue full. */
    synchronized boolean full(int size) {
        return overflow(size) != null;
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
                out = numbered(drainWith(resumed.reply()));
                armExpiry(session.getInterval() + session.getMaxInterval());
            } else if (push != null && !session.isMetaConnectDeliveryOnly()) {
                pusher = push;
            }
        }
        if (resumed != null) {
            releaseSlot(resumed);
            answer(resumed, out);
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

    /**
     * Takes the oldest queued messages for a persistent connection to write: at most {@code max} of them, and no more
     * than {@code maxBytes} bytes unless the first alone is larger.
     */
    synchronized List<Message> drainForPush(Outlet outlet, int max, long maxBytes) {
        if (!alive || push != outlet || session.isMetaConnectDeliveryOnly() || queue == null || queue.isEmpty()) {
            return List.of();
        }
        List<Message> messages = new ArrayList<>(Math.min(max, queue.size()));
        take(messages, max, maxBytes);
        return messages;
    }

    /**
     * Takes the oldest queued messages for the answer to another request of this session's client, while its
     * {@code /meta/connect} is held on a polling transport: what was queued while that request was handled (a
     * publisher's own copy, most often) then leaves with its answer, and the held poll is not answered for it, which
     * would cost the client a response and a new poll. Within {@code maxMessageSize} bytes; nothing when messages
     * reach this client only with {@code /meta/connect} replies (the ack extension's clients among them), when no
     * poll is held (the next poll takes the queue), or when a queued message has a history position: the next
     * message may leave on the held poll, another connection, and reach the client first, and a client that keeps
     * positions drops a message whose position is behind the last it saw. Messages with positions therefore leave
     * only with poll answers, in order.
     */
    synchronized List<Message> drainForReply() {
        if (!alive || held == null || !held.carriesQueue || session.isMetaConnectDeliveryOnly() || queue == null
                || queue.isEmpty()) {
            return List.of();
        }
        for (Message queued : queue) {
            Map<String, Object> ext = queued.getExt();
            if (ext != null && ext.containsKey(History.EXT)) {
                return List.of();
            }
        }
        List<Message> messages = new ArrayList<>(Math.min(queue.size(), options.maxMessagesPerFrame()));
        take(messages, Integer.MAX_VALUE, options.maxMessageSize());
        return messages;
    }

    /** Moves the oldest queued messages to {@code out}, within {@code max} messages and {@code maxBytes} bytes. */
    private void take(List<Message> out, int max, long maxBytes) {
        long bytes = 0;
        for (int taken = 0; taken < max && !queue.isEmpty(); taken++) {
            int size = registry.sizeOf(queue.peekFirst());
            if (taken > 0 && bytes + size > maxBytes) {
                break;
            }
            out.add(queue.pollFirst());
            bytes += size;
        }
        queuedBytes -= bytes;
    }

    ConnectOutcome connect(ConnectRequest request) {
        HeldConnect replaced;
        List<Message> bare = null;
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
                // The client gave up on it: its bare reply, queued messages kept for the new one.
                bare = bareAnswer(replaced);
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
                List<Message> out = numbered(carries ? drainWith(reply) : new ArrayList<>(List.of(reply)));
                long wait = multipleClients ? options.multiSessionInterval() : session.getInterval();
                armExpiry(wait + session.getMaxInterval());
                outcome = new ConnectOutcome(out, multipleClients);
            }
        }
        if (replaced != null) {
            answer(replaced, bare);
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
                out = timedOut.carriesQueue ? numbered(drainWith(timedOut.reply())) : bareAnswer(timedOut);
                armExpiry(session.getInterval() + session.getMaxInterval());
            } else if (due == SessionTimer.Kind.EXPIRY && held == null) {
                expired = end();
            }
        }
        if (timedOut != null) {
            releaseSlot(timedOut);
            answer(timedOut, out);
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

    /**
     * Numbers a {@code /meta/connect} answer's batch for the ack extension ({@code ext.ack} on the reply, last in
     * {@code out}), under this mailbox's lock, where its messages left the queue: batches are then numbered in the
     * order their messages were taken, and a lost batch re-sent never arrives behind a newer one. Numbered after
     * the lock, as it was, two answers drained in one order (a publisher's wake, and a new connect taking what was
     * published next) could be numbered in the other (ConcurrencyStressTest saw it once under load).
     */
    private List<Message> numbered(List<Message> out) {
        AckTracker acks = session.ackTracker();
        if (acks != null) {
            int last = out.size() - 1;
            long batch = acks.record(out.subList(0, last));
            ((MessageImpl) out.get(last)).getExt(true).put(ACK, batch);
        }
        return out;
    }

    /** A held connect's reply alone, numbered: under the lock. */
    private List<Message> bareAnswer(HeldConnect connect) {
        return numbered(new ArrayList<>(List.of(connect.reply())));
    }

    /** Sends a held connect its answer, after the lock: the outgoing extensions on its reply, then its outlet. */
    private void answer(HeldConnect connect, List<Message> out) {
        registry.beforeConnectReply(session, out);
        connect.outlet.deliver(out);
    }

    /**
     * The queued messages a {@code /meta/connect} reply carries, then the reply: at most {@code maxMessageSize} bytes
     * of them (or the first alone, if larger); what remains answers the client's next connect at once.
     */
    private List<Message> drainWith(MessageImpl reply) {
        int size = queue == null ? 0 : queue.size();
        List<Message> out = new ArrayList<>(Math.min(size, options.maxMessagesPerFrame()) + 1);
        if (size > 0) {
            take(out, Integer.MAX_VALUE, options.maxMessageSize());
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
        queuedBytes = 0;
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
