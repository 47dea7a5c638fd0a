package io.weft.server.internal.session;

import io.weft.bayeux.Message;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.ClientRequest;
import io.weft.server.api.EndReason;
import io.weft.server.api.Extension;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.internal.util.LazyList;
import io.weft.server.spi.Connection;
import io.weft.server.spi.History;
import java.lang.ref.WeakReference;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One session: identity, browser binding, subscriptions, attributes, extensions and listeners. Its queue and connect
 * state machine are its {@link Mailbox}. Collections a session may never use (attributes, extensions, listeners) are
 * created on first use, so an idle session stays small.
 */
public final class SessionImpl implements ServerSession {
    /**
     * How long after its handshake a session of a first visit admits a socket that presented no cookie, the first
     * such one from its address (see {@link #admitsRacingConnection}).
     */
    public static final long FIRST_VISIT_RACE_MILLIS = 10_000;

    private final String id;
    private final SessionRegistry registry;
    private final boolean local;
    private final ClientRequest request;
    private final Mailbox mailbox;
    private final AtomicInteger batchDepth = new AtomicInteger();
    private final AtomicBoolean wakeDeferred = new AtomicBoolean();

    private volatile boolean alive = true;
    /** The browser id and address key this session was counted under when it was admitted (null: not counted). */
    final String admittedBrowser;
    final Object addressKey;
    /** Whether this session holds places in the registry's counts, to give back once when it ends. */
    final AtomicBoolean counted = new AtomicBoolean();
    private String browserId;
    /** When the handshake created this session ({@link io.weft.server.api.Scheduler#now()}). */
    private final long createdMillis;
    /**
     * The connection the first-visit race admitted, if one did (weakly: a closed socket is not kept for the session's
     * life); guarded by this.
     */
    private WeakReference<Connection> racer;
    /** Why this session ends, once something ends it (set before its mailbox stops admitting connects). */
    private final AtomicReference<EndReason> endReason = new AtomicReference<>();
    private Set<Subscription> subscriptions;
    /** The channels this session recovered or is recovering; null until its first recovery. */
    private volatile Recovering recovering;
    private volatile Map<String, Object> attributes;
    private final LazyList<Extension> extensions = new LazyList<>();
    private final LazyList<Listener> listeners = new LazyList<>();
    private volatile long timeout = -1;
    private volatile long interval = -1;
    private volatile long maxInterval = -1;
    private volatile Boolean deliveryOnly;
    private volatile AckTracker ackTracker;

    SessionImpl(String id, String browserId, Object addressKey, ClientRequest request, SessionRegistry registry,
            boolean local) {
        this.id = id;
        this.request = request;
        this.browserId = browserId;
        this.admittedBrowser = browserId;
        this.addressKey = addressKey;
        this.registry = registry;
        this.local = local;
        this.mailbox = new Mailbox(this, registry);
        this.createdMillis = registry.scheduler().now();
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
    public boolean isLocal() {
        return local;
    }

    /** What this session is counted under per address (see {@link SessionRegistry}), or null: server code. */
    public Object addressKey() {
        return addressKey;
    }

    @Override
    public ClientRequest getRequest() {
        return request;
    }

    @Override
    public String getConnectionType() {
        return local ? "local" : mailbox.connectionType();
    }

    @Override
    public synchronized Set<ServerChannel> getSubscriptions() {
        return subscriptions == null ? Set.of() : Set.copyOf(subscriptions);
    }

    @Override
    public int getQueueSize() {
        return mailbox.size();
    }

    @Override
    public long getDroppedMessages() {
        return mailbox.dropped();
    }

    @Override
    public void deliver(ServerSession from, String channel, Object data) {
        MessageImpl message = new MessageImpl();
        message.setChannel(Objects.requireNonNull(channel, "channel"));
        message.setData(data);
        deliver(from, message);
    }

    @Override
    public void deliver(ServerSession from, Message.Mutable message) {
        registry.delivery().deliverTo(this, (SessionImpl) from, (MessageImpl) message);
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

    /**
     * The first-visit race: whether {@code connection}, which presented no browser cookie, may act for this session
     * whatever it is bound to. A browser on its first visit may open its socket while it handshakes over HTTP, both
     * without a cookie (the Faye client does): the handshake's reply gives the browser its cookie, its next request
     * binds the session to it, and the socket, whose cookies were fixed when it opened, can never present it. Such a
     * socket is admitted, and from then on only it, when it is the first cookieless persistent connection to act for
     * the session, from the address the handshake came from, within {@link #FIRST_VISIT_RACE_MILLIS} of the handshake,
     * and the handshake itself presented no cookie (a browser that had one would have sent it on the socket too).
     *
     * <p>Why a cookieless attacker is not admitted: it would need the clientId (144 random bits, sent only in the
     * handshake's reply) within seconds of the handshake, from the victim's own address, before the victim's socket
     * acts; and a session whose client had a cookie, or one older than the window, or one a socket already claimed,
     * is never reached this way. One-shot requests never are: a browser's carry the cookie.
     */
    synchronized boolean admitsRacingConnection(Connection connection, Object connectionAddressKey, long now) {
        if (racer != null) {
            return racer.get() == connection;
        }
        if (!connection.isPersistent() || connection.browserId() != null || admittedBrowser != null || local
                || addressKey == null || !addressKey.equals(connectionAddressKey)
                || now - createdMillis > FIRST_VISIT_RACE_MILLIS) {
            return false;
        }
        racer = new WeakReference<>(connection);
        return true;
    }

    // ---- extensions, listeners, attributes ----

    @Override
    public void addExtension(Extension extension) {
        extensions.add(Objects.requireNonNull(extension, "extension"));
    }

    @Override
    public void removeExtension(Extension extension) {
        extensions.remove(extension);
    }

    /** This session's extensions, in the order added. */
    public List<Extension> extensions() {
        return extensions.get();
    }

    @Override
    public void addListener(Listener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void removeListener(Listener listener) {
        listeners.remove(listener);
    }

    public List<Listener> listeners() {
        return listeners.get();
    }

    @Override
    public Object getAttribute(String name) {
        Map<String, Object> map = attributes;
        return map == null ? null : map.get(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
        Objects.requireNonNull(name, "name");
        if (value == null) {
            removeAttribute(name);
            return;
        }
        synchronized (this) {
            if (attributes == null) {
                attributes = new ConcurrentHashMap<>(4);
            }
        }
        attributes.put(name, value);
    }

    @Override
    public Object removeAttribute(String name) {
        Map<String, Object> map = attributes;
        return map == null ? null : map.remove(name);
    }

    @Override
    public Set<String> getAttributeNames() {
        Map<String, Object> map = attributes;
        return map == null ? Set.of() : Set.copyOf(map.keySet());
    }

    // ---- per-session timing and delivery mode ----

    @Override
    public long getTimeout() {
        return timeout >= 0 ? timeout : registry.options().timeout();
    }

    @Override
    public void setTimeout(long millis) {
        this.timeout = millis;
    }

    @Override
    public long getInterval() {
        return interval >= 0 ? interval : registry.options().interval();
    }

    @Override
    public void setInterval(long millis) {
        this.interval = millis;
    }

    @Override
    public long getMaxInterval() {
        return maxInterval >= 0 ? maxInterval : registry.options().maxInterval();
    }

    @Override
    public void setMaxInterval(long millis) {
        this.maxInterval = millis;
    }

    @Override
    public boolean isMetaConnectDeliveryOnly() {
        Boolean own = deliveryOnly;
        return own != null ? own : registry.options().metaConnectDeliveryOnly();
    }

    @Override
    public void setMetaConnectDeliveryOnly(boolean deliveryOnly) {
        this.deliveryOnly = deliveryOnly;
    }

    @Override
    public synchronized void enableAcknowledgedDelivery() {
        if (ackTracker == null) {
            setMetaConnectDeliveryOnly(true);
            ServerOptions options = registry.options();
            ackTracker = new AckTracker(options.maxUnacknowledged(), options.maxUnacknowledgedBytes(),
                    options.maxResendBytes(), registry::sizeOf, registry.refusals());
        }
    }

    @Override
    public boolean isAcknowledgedDelivery() {
        return ackTracker != null;
    }

    @Override
    public void acknowledge(long lastBatch) {
        AckTracker acks = ackTracker;
        if (acks != null) {
            mailbox.acknowledge(acks, lastBatch);
        }
    }

    /** The acknowledgement state, or null if this session's client did not ask for acks. */
    public AckTracker ackTracker() {
        return ackTracker;
    }

    // ---- queue and connect state machine (see Mailbox) ----

    /**
     * Queues a message for this session without waking its transport; the caller wakes it (see {@link #wake()}),
     * usually once after a whole batch. Applies the overflow policy when the queue is full.
     *
     * @return false if the message was not queued: the session has ended, or it overflowed under the disconnect
     *     policy and has been disconnected
     */
    public boolean enqueue(Message message) {
        Recovering recoveries = recovering;
        if (recoveries != null && recoveries.intercept(message, registry.options().maxRecoveredMessages())) {
            return true;
        }
        return enqueueNow(message);
    }

    private boolean enqueueNow(Message message) {
        int size = registry.sizeOf(message);
        if (mailbox.full(size)) {
            registry.notifyQueueFull(this, message);
        }
        Mailbox.Offer offer = mailbox.offer(message, size);
        if (offer == Mailbox.Offer.OVERFLOWED) {
            registry.remove(this, EndReason.QUEUE_FULL);
        } else if (offer == Mailbox.Offer.QUEUED) {
            registry.notifyQueued(this, message);
        }
        return offer == Mailbox.Offer.QUEUED;
    }

    // ---- recovery (docs/protocol.md, "History and recovery"; see Recovering) ----

    /** Holds {@code channel}'s live publications until {@link #finishRecovery} or {@link #abandonRecovery}. */
    public void beginRecovery(String channel) {
        Recovering recoveries;
        synchronized (this) {
            recoveries = recovering;
            if (recoveries == null) {
                recoveries = new Recovering();
                recovering = recoveries;
            }
        }
        ServerOptions options = registry.options();
        recoveries.begin(channel, options.maxSubscriptionsPerSession() + options.maxRecoverChannels());
    }

    /** The subscription that asked for {@code channel}'s recovery failed: what was held is queued. */
    public void abandonRecovery(String channel) {
        Recovering recoveries = recovering;
        if (recoveries != null) {
            recoveries.abandon(channel, this::enqueueNow);
        }
    }

    /**
     * Queues what a recovery read found (if {@code complete}; {@code recovered} past the outgoing extensions), then
     * the live publications held meanwhile that are newer than {@code top}, the position the client is given.
     *
     * @return whether everything missed was recovered
     */
    public boolean finishRecovery(String channel, History.Position top, List<Message> recovered, boolean complete) {
        Recovering recoveries = recovering;
        return recoveries != null && recoveries.finish(channel, top, recovered, complete, this::enqueueNow);
    }

    /** Puts messages back at the head of the queue, in order. */
    public void requeueFront(List<Message> messages) {
        mailbox.requeueFront(messages);
    }

    /**
     * Tells the transport that messages are queued: answers a held {@code /meta/connect} that carries the queue, or
     * lets a persistent connection push. Inside a {@link #batch}, waits for its end.
     */
    public void wake() {
        if (batchDepth.get() > 0) {
            wakeDeferred.set(true);
            if (batchDepth.get() > 0) {
                return;
            }
        }
        wakeDeferred.set(false);
        mailbox.wake();
    }

    /** Wakes within {@code delayMillis} unless something wakes sooner: for lazy messages. */
    public void wakeWithin(long delayMillis) {
        mailbox.wakeWithin(delayMillis);
    }

    @Override
    public void batch(Runnable batch) {
        batchDepth.incrementAndGet();
        try {
            batch.run();
        } finally {
            if (batchDepth.decrementAndGet() == 0 && wakeDeferred.compareAndSet(true, false)) {
                mailbox.wake();
            }
        }
    }

    /** The oldest queued messages, at most {@code max} and {@code maxBytes} bytes (or the first alone, if larger). */
    public List<Message> drainForPush(Outlet outlet, int max, long maxBytes) {
        return mailbox.drainForPush(outlet, max, maxBytes);
    }

    /**
     * The oldest queued messages, for the answer to a request of this session's client other than
     * {@code /meta/connect} while its poll is held; empty when they must wait for a {@code /meta/connect} reply (see
     * {@link Mailbox#drainForReply}).
     */
    public List<Message> drainForReply() {
        return mailbox.drainForReply();
    }

    /** The bytes of the messages queued for this session. */
    public long getQueuedBytes() {
        return mailbox.bytes();
    }

    /**
     * Applies a {@code /meta/connect}.
     *
     * @return what was decided (held, or the messages to send now), or null if the session has ended
     */
    public ConnectOutcome connect(ConnectRequest request) {
        return mailbox.connect(request);
    }

    /**
     * The connection behind {@code outlet} has ended: its held {@code /meta/connect} is dropped unanswered, it no
     * longer pushes, and the session expires after {@code maxInterval} unless the client comes back.
     */
    public void detach(Outlet outlet) {
        mailbox.detach(outlet);
    }

    /**
     * Makes {@code outlet} this session's eventsource stream; returns the stream it replaces (to be closed), or
     * {@code outlet} itself if the session has ended.
     */
    public Outlet attachStream(Outlet outlet) {
        return mailbox.attachStream(outlet);
    }

    /** This session's eventsource stream, or null. */
    public Outlet stream() {
        return mailbox.stream();
    }

    /** Arms expiry for a session that has just handshaken: it must connect within interval + maxInterval. */
    public void handshaken(Outlet outlet, boolean persistent) {
        mailbox.handshaken(outlet, persistent);
    }

    // ---- subscriptions and end ----

    /**
     * Records a subscription, unless the session has ended or already holds {@code max} others (the caller then
     * undoes its side).
     */
    public synchronized Subscription.Outcome addSubscription(Subscription channel, int max) {
        if (!alive) {
            return Subscription.Outcome.ENDED;
        }
        if (subscriptions == null) {
            subscriptions = new HashSet<>(4);
        } else if (subscriptions.contains(channel)) {
            return Subscription.Outcome.ALREADY;
        } else if (subscriptions.size() >= max) {
            return Subscription.Outcome.FULL;
        }
        subscriptions.add(channel);
        return Subscription.Outcome.ADDED;
    }

    public synchronized boolean isSubscribed(Subscription channel) {
        return subscriptions != null && subscriptions.contains(channel);
    }

    /** How many channels this session is subscribed to. */
    /** Whether this session's client has a {@code /meta/connect} held now. */
    public boolean isHoldingConnect() {
        return mailbox.holding();
    }

    public synchronized int subscriptionCount() {
        return subscriptions == null ? 0 : subscriptions.size();
    }

    public synchronized void removeSubscription(Subscription channel) {
        if (subscriptions != null) {
            subscriptions.remove(channel);
        }
    }

    /** Marks the session ended; returns what the caller must release, or null if it had already ended. */
    /**
     * Records why the session is ending, if nothing did first; done before it ends, so that a request that meets the
     * ended session reads it ({@link #endReason()}).
     */
    void ending(EndReason reason) {
        endReason.compareAndSet(null, reason);
    }

    /** Why the session ended or is ending, or null while it lives. */
    public EndReason endReason() {
        return endReason.get();
    }

    Ended end() {
        Mailbox.Ended box = mailbox.end();
        return box == null ? null : ended(box);
    }

    /** The session's side of an end its mailbox has already decided (see {@link Mailbox#end()}). */
    Ended ended(Mailbox.Ended box) {
        List<Subscription> channels;
        synchronized (this) {
            alive = false;
            channels = subscriptions == null ? List.of() : List.copyOf(subscriptions);
            subscriptions = null;
        }
        return new Ended(box, channels);
    }

    void released(Ended ended) {
        mailbox.released(ended.box());
    }

    record Ended(Mailbox.Ended box, List<Subscription> subscriptions) {
        HeldConnect held() {
            return box.held();
        }

        Outlet push() {
            return box.push();
        }

        Outlet stream() {
            return box.stream();
        }
    }

    @Override
    public String toString() {
        return (local ? "LocalSession[" : "Session[") + id + "]";
    }
}
