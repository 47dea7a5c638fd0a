package io.weft.server.internal.session;

import io.weft.server.api.Message;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.internal.channel.ChannelNode;
import io.weft.server.internal.codec.MessageImpl;
import io.weft.server.spi.Scheduler;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One session: its bounded queue and the connect state machine that every transport shares.
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
 * All state is guarded by {@code this}; calls out (outlets, channels, the registry's removal) happen after the lock
 * is released, so no lock is ever taken while this one is held except the registry's browser-slot map.
 */
public final class SessionImpl implements ServerSession {
    private final String id;
    private final SessionRegistry registry;
    private final ServerOptions options;
    private final Scheduler scheduler;

    private String browserId;
    private String connectionType;
    private ArrayDeque<Message> queue;
    private long dropped;
    private HeldConnect held;
    private Outlet push;
    private Scheduler.Task expiry;
    private long expiryGeneration;
    private Set<ChannelNode> subscriptions;
    private volatile boolean alive = true;

    SessionImpl(String id, String browserId, SessionRegistry registry) {
        this.id = id;
        this.browserId = browserId;
        this.registry = registry;
        this.options = registry.options();
        this.scheduler = registry.scheduler();
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public boolean isConnected() {
        return alive;
    }

    @Override
    public synchronized String getConnectionType() {
        return connectionType;
    }

    @Override
    public synchronized Set<ServerChannel> getSubscriptions() {
        return subscriptions == null ? Set.of() : Set.copyOf(subscriptions);
    }

    @Override
    public synchronized int getQueueSize() {
        return queue == null ? 0 : queue.size();
    }

    @Override
    public synchronized long getDroppedMessages() {
        return dropped;
    }

    @Override
    public void disconnect() {
        registry.remove(this, EndReason.SERVER_DISCONNECT);
    }

    /**
     * Whether a request carrying {@code requestBrowserId} may act for this session. A session is bound to the first
     * browser id its client presents; from then on only that browser's requests reach it.
     */
    public synchronized boolean admits(String requestBrowserId) {
        if (browserId == null) {
            browserId = requestBrowserId;
            return true;
        }
        return browserId.equals(requestBrowserId);
    }

    // ---- queue ----

    /**
     * Queues a message for this session without waking its transport; the caller wakes it (see {@link #wake()}),
     * usually once after a whole batch. Applies the overflow policy when the queue is full.
     *
     * @return false if the message was not queued: the session has ended, or it overflowed under the
     *     {@link ServerOptions.OverflowPolicy#DISCONNECT} policy and is being disconnected
     */
    public boolean enqueue(Message message) {
        boolean overflow = false;
        synchronized (this) {
            if (!alive) {
                return false;
            }
            if (queue == null) {
                queue = new ArrayDeque<>(8);
            }
            if (queue.size() >= options.maxQueue()) {
                dropped++;
                if (options.queueOverflow() == ServerOptions.OverflowPolicy.DROP_OLDEST) {
                    queue.pollFirst();
                } else {
                    overflow = true;
                }
            }
            if (!overflow) {
                queue.addLast(message);
            }
        }
        if (overflow) {
            registry.remove(this, EndReason.QUEUE_FULL);
            return false;
        }
        return true;
    }

    /**
     * Tells the transport that messages are queued: answers a held {@code /meta/connect} that carries the queue, or
     * lets a persistent connection push.
     */
    public void wake() {
        HeldConnect resumed = null;
        List<Message> out = null;
        Outlet pusher = null;
        synchronized (this) {
            if (!alive || queue == null || queue.isEmpty()) {
                return;
            }
            if (held != null && held.carriesQueue) {
                resumed = takeHeld();
                out = drainWith(resumed.reply);
                armExpiry(options.interval() + options.maxInterval());
            } else if (push != null && !options.metaConnectDeliveryOnly()) {
                pusher = push;
            }
        }
        if (resumed != null) {
            releaseSlot(resumed);
            resumed.outlet.deliver(out);
        } else if (pusher != null) {
            pusher.wake();
        }
    }

    /**
     * Takes up to {@code max} queued messages for a persistent outlet that pushes; none if {@code outlet} is not
     * this session's pushing connection, or messages only leave with {@code /meta/connect} replies.
     */
    public synchronized List<Message> drainForPush(Outlet outlet, int max) {
        if (!alive || push != outlet || options.metaConnectDeliveryOnly() || queue == null || queue.isEmpty()) {
            return List.of();
        }
        int count = Math.min(max, queue.size());
        List<Message> messages = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            messages.add(queue.pollFirst());
        }
        return messages;
    }

    // ---- connect state machine ----

    /**
     * Applies a {@code /meta/connect}.
     *
     * @return what to send now (queued messages, if the outlet carries them, then the reply), or null if the connect
     *     is held and will be answered through {@code request.outlet()} later
     */
    public ConnectOutcome connect(ConnectRequest request) {
        HeldConnect replaced;
        ConnectOutcome outcome;
        synchronized (this) {
            if (!alive) {
                return null;
            }
            connectionType = request.connectionType();
            cancelExpiry();
            replaced = takeHeld();
            if (replaced != null) {
                // Free the browser's slot before this connect asks for it: it replaces, it is not another tab.
                releaseSlot(replaced);
            }
            push = request.persistent() ? request.outlet() : null;
            boolean queued = queue != null && !queue.isEmpty();
            boolean carries = !request.persistent() || options.metaConnectDeliveryOnly();
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
                HeldConnect connect = new HeldConnect(request.outlet(), request.reply(), carries, slot);
                connect.timeout = scheduler.schedule(() -> heldTimedOut(connect), request.holdMillis());
                held = connect;
                outcome = ConnectOutcome.HELD;
            } else {
                List<Message> out = carries ? drainWith(request.reply()) : List.of(request.reply());
                long wait = (multipleClients ? options.multiSessionInterval() : options.interval());
                armExpiry(wait + options.maxInterval());
                outcome = new ConnectOutcome(out, multipleClients);
            }
        }
        if (replaced != null) {
            // The client gave up on its previous connect: answer it with its bare reply, keeping queued messages
            // for the new one.
            replaced.outlet.deliver(List.of(replaced.reply));
        }
        return outcome;
    }

    private void heldTimedOut(HeldConnect connect) {
        List<Message> out;
        synchronized (this) {
            if (held != connect) {
                return;
            }
            held = null;
            out = connect.carriesQueue ? drainWith(connect.reply) : List.of(connect.reply);
            armExpiry(options.interval() + options.maxInterval());
        }
        releaseSlot(connect);
        connect.outlet.deliver(out);
    }

    /**
     * The connection behind {@code outlet} has ended: its held {@code /meta/connect} is dropped unanswered, it no
     * longer pushes, and the session expires after {@code maxInterval} unless the client comes back.
     */
    public void detach(Outlet outlet) {
        HeldConnect dropped = null;
        synchronized (this) {
            if (!alive) {
                return;
            }
            if (push == outlet) {
                push = null;
            }
            if (held != null && held.outlet == outlet) {
                dropped = takeHeld();
                armExpiry(options.maxInterval());
            }
        }
        if (dropped != null) {
            releaseSlot(dropped);
        }
    }

    /** Arms expiry for a session that has just handshaken: it must connect within interval + maxInterval. */
    public synchronized void handshaken(Outlet outlet, boolean persistent) {
        if (persistent) {
            push = outlet;
        }
        armExpiry(options.interval() + options.maxInterval());
    }

    private HeldConnect takeHeld() {
        HeldConnect connect = held;
        if (connect != null) {
            held = null;
            if (connect.timeout != null) {
                connect.timeout.cancel();
            }
        }
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
        cancelExpiry();
        long generation = ++expiryGeneration;
        expiry = scheduler.schedule(() -> expire(generation), delay);
    }

    private void cancelExpiry() {
        if (expiry != null) {
            expiry.cancel();
            expiry = null;
        }
        expiryGeneration++;
    }

    private void expire(long generation) {
        synchronized (this) {
            if (!alive || generation != expiryGeneration || held != null) {
                return;
            }
        }
        registry.remove(this, EndReason.TIMED_OUT);
    }

    // ---- subscriptions and end ----

    /** Records a subscription; false if the session has ended (the caller then undoes it). */
    public synchronized boolean addSubscription(ChannelNode channel) {
        if (!alive) {
            return false;
        }
        if (subscriptions == null) {
            subscriptions = new HashSet<>(4);
        }
        subscriptions.add(channel);
        return true;
    }

    public synchronized void removeSubscription(ChannelNode channel) {
        if (subscriptions != null) {
            subscriptions.remove(channel);
        }
    }

    /** Marks the session ended; returns what the caller must release, or null if it had already ended. */
    synchronized Ended end() {
        if (!alive) {
            return null;
        }
        alive = false;
        cancelExpiry();
        Ended ended = new Ended(takeHeld(), push, subscriptions == null ? List.of() : List.copyOf(subscriptions));
        push = null;
        subscriptions = null;
        queue = null;
        return ended;
    }

    void released(Ended ended) {
        if (ended.held() != null) {
            releaseSlot(ended.held());
        }
    }

    record Ended(HeldConnect held, Outlet push, List<ChannelNode> subscriptions) {
    }

    @Override
    public String toString() {
        return "Session[" + id + "]";
    }
}
