package io.weft.server.internal.session;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.Message;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.ClientRequest;
import io.weft.server.api.EndReason;
import io.weft.server.api.Limit;
import io.weft.server.api.Scheduler;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.reply.Advice;
import io.weft.server.internal.reply.Replies;
import io.weft.server.internal.stats.Counters;
import io.weft.server.internal.util.Refusals;
import io.weft.server.spi.Addresses;
import io.weft.server.spi.Connection;
import io.weft.server.spi.RandomIds;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live sessions by clientId, the per-browser count of held polls, and the one way a session ends.
 */
public final class SessionRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(SessionRegistry.class);

    private final ServerOptions options;
    private final Scheduler scheduler;
    private final Refusals refusals;
    private final ConcurrentHashMap<String, SessionImpl> sessions = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Integer> browserSlots = new ConcurrentHashMap<>();
    /** Sessions the server ended, remembered for maxInterval so that a client caught between polls is told. */
    private final ConcurrentHashMap<String, EndReason> endedByServer = new ConcurrentHashMap<>();
    private final Counters counters;
    private final SessionHooks hooks;
    private final ToIntFunction<Message> sizer;
    private volatile boolean closed;
    /** Set when the server starts draining: client handshakes are refused from then on. */
    private volatile boolean draining;
    /** Sessions whose drain moment has come and whose {@code /meta/connect} has not been answered for it yet. */
    private final Set<SessionImpl> drainDue = ConcurrentHashMap.newKeySet();
    private final AtomicInteger live = new AtomicInteger();
    private final ConcurrentHashMap<Object, Integer> perAddress = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Integer> perBrowser = new ConcurrentHashMap<>();

    /**
     * @param hooks what sessions tell the rest of the engine (listeners, extensions, delivery)
     * @param sizer the bytes a message takes on the wire (its JSON), for the bounds in bytes
     */
    public SessionRegistry(ServerOptions options, Scheduler scheduler, Refusals refusals, Counters counters,
            SessionHooks hooks, ToIntFunction<Message> sizer) {
        this.hooks = hooks;
        this.sizer = sizer;
        this.options = options;
        this.scheduler = scheduler;
        this.refusals = refusals;
        this.counters = counters;
    }

    Refusals refusals() {
        return refusals;
    }

    Counters counters() {
        return counters;
    }

    SessionHooks delivery() {
        return hooks;
    }

    void beforeConnectReply(SessionImpl session, List<Message> out) {
        hooks.beforeConnectReply(session, out);
    }

    void notifyQueued(SessionImpl session, Message message) {
        hooks.queued(session, message);
    }

    void notifyQueueFull(SessionImpl session, Message message) {
        hooks.queueFull(session, message);
    }

    ServerOptions options() {
        return options;
    }

    /** The bytes {@code message} takes on the wire; cheap once a frozen message has been encoded. */
    int sizeOf(Message message) {
        return sizer.applyAsInt(message);
    }

    Scheduler scheduler() {
        return scheduler;
    }

    /**
     * A new session with a fresh id, bound to {@code browserId} if not null; not live until {@link #register}ed
     * (a handshake the security policy denies never becomes one).
     */
    public SessionImpl newSession(String browserId, InetAddress address, ClientRequest request, boolean local) {
        String id = RandomIds.next();
        return new SessionImpl(id, browserId, address == null || local ? null : Addresses.key(address), request, this,
                local);
    }

    /**
     * Makes a new session live; false (and the session's places released) if the registry has been closed, or a
     * client's session if it has started draining, meanwhile: a handshake whose policy answered while the server
     * closed must not leave a session behind, nor one that no drain moment would reach.
     */
    public boolean register(SessionImpl session) {
        if (sessions.putIfAbsent(session.getId(), session) != null) {
            // 144 random bits do not collide; if they ever do, refusing beats merging two clients.
            throw new IllegalStateException("session id collision");
        }
        // closed is set before close() takes its snapshot of the sessions: either that snapshot has this one, or
        // this check sees closed. The same for draining, whose snapshot gives each session its moment.
        if (closed || (draining && !session.isLocal())) {
            sessions.remove(session.getId(), session);
            release(session);
            return false;
        }
        return true;
    }

    /** The live session, whoever asks. */
    public SessionImpl get(String clientId) {
        return clientId == null ? null : sessions.get(clientId);
    }

    /**
     * The live session {@code clientId} names, if {@code connection} may act for it; null otherwise, which the engine
     * answers with {@code 402::session_unknown} either way, so a guess learns nothing. A connection may act for a
     * session when the server trusts clientIds, when the session admits the browser id it presented (it is bound to
     * it, or is bound to nothing yet: {@link SessionImpl#admits}), or when it is the cookieless socket of the
     * session's first-visit race ({@link SessionImpl#admitsRacingConnection}). A cookieless socket that acts for a
     * session not bound yet is checked against the race too, so that it stays admitted once the session is bound.
     */
    public SessionImpl lookup(String clientId, Connection connection) {
        SessionImpl session = get(clientId);
        if (session == null || options.trustClientId()) {
            return session;
        }
        String browserId = connection.browserId();
        boolean racing = browserId == null && connection.isPersistent()
                && session.admitsRacingConnection(connection, addressKeyOf(connection.remoteAddress()), scheduler.now());
        if (racing || session.admits(browserId)) {
            return session;
        }
        LOG.debug("refusing {}: presented by another browser", session);
        return null;
    }

    private static Object addressKeyOf(InetAddress address) {
        return address == null ? null : Addresses.key(address);
    }

    /**
     * Why the server ended the session {@code clientId} (disconnected it, or its queue overflowed), if it did so
     * within the last maxInterval and its client has not been told since; each ending is told once.
     */
    public EndReason takeEndedByServer(String clientId) {
        return clientId == null ? null : endedByServer.remove(clientId);
    }

    public Collection<SessionImpl> sessions() {
        return sessions.values();
    }

    public int size() {
        return sessions.size();
    }

    boolean acquireBrowserSlot(String browserId) {
        boolean[] acquired = new boolean[1];
        browserSlots.compute(browserId, (id, count) -> {
            int current = count == null ? 0 : count;
            if (current >= options.maxSessionsPerBrowser()) {
                return count;
            }
            acquired[0] = true;
            return current + 1;
        });
        return acquired[0];
    }

    void releaseBrowserSlot(String browserId) {
        browserSlots.computeIfPresent(browserId, (id, count) -> count <= 1 ? null : count - 1);
    }

    /**
     * Ends a session: it leaves its channels, its held {@code /meta/connect} is answered, and the client is told when
     * the server ended it. Idempotent; safe from any thread.
     */
    public void remove(SessionImpl session, EndReason reason) {
        // Before the end: a connect that finds the session ended a moment later reads why (ConnectHandler).
        session.ending(reason);
        SessionImpl.Ended ended = session.end();
        if (ended != null) {
            finish(session, ended, reason);
        }
    }

    /** A session's mailbox has decided, under its lock, that it expired and has ended it: the rest of its end. */
    void expired(SessionImpl session, Mailbox.Ended box) {
        session.ending(EndReason.TIMED_OUT);
        finish(session, session.ended(box), EndReason.TIMED_OUT);
    }

    private void finish(SessionImpl session, SessionImpl.Ended ended, EndReason reason) {
        sessions.remove(session.getId(), session);
        drainDue.remove(session);
        release(session);
        for (Subscription channel : ended.subscriptions()) {
            channel.removeSubscriber(session);
        }
        session.released(ended);
        tellClient(ended, reason);
        if (ended.stream() != null) {
            ended.stream().sessionEnded();
        }
        if (reason == EndReason.QUEUE_FULL) {
            counters.slowConsumer();
        } else if (reason == EndReason.DRAINED) {
            counters.sessionDrained();
        }
        if (reason == EndReason.SERVER_DISCONNECT || reason == EndReason.QUEUE_FULL) {
            String id = session.getId();
            endedByServer.put(id, reason);
            scheduler.schedule(() -> endedByServer.remove(id), session.getMaxInterval());
        }
        LOG.debug("{} ended: {}", session, reason);
        hooks.ended(session, reason, ended.subscriptions());
    }

    private static void tellClient(SessionImpl.Ended ended, EndReason reason) {
        List<Message> out = new ArrayList<>(2);
        boolean serverInitiated = reason == EndReason.SERVER_DISCONNECT || reason == EndReason.QUEUE_FULL;
        if (serverInitiated) {
            out.add(Replies.disconnected(reason == EndReason.QUEUE_FULL ? BayeuxError.QUEUE_FULL : null));
        }
        if (ended.held() != null) {
            MessageImpl reply = ended.held().reply();
            if (reason == EndReason.DRAINED) {
                ended.held().outlet.goAway();
            }
            // Ended on purpose (the client's disconnect, the server's, a slow consumer): stop. Otherwise (a timeout,
            // the server closing) the client should come back with a new session, here or on another node.
            boolean stop = serverInitiated || reason == EndReason.DISCONNECTED;
            (stop ? Advice.NONE : Advice.HANDSHAKE_NOW).applyTo(reply);
            if (reason == EndReason.QUEUE_FULL) {
                Replies.fail(reply, BayeuxError.QUEUE_FULL);
            } else if (reason == EndReason.SERVER_CLOSED) {
                Replies.fail(reply, BayeuxError.SERVER_CLOSING);
            } else if (reason == EndReason.DRAINED) {
                Replies.fail(reply, BayeuxError.SERVER_DRAINING);
            }
            out.add(reply);
            ended.held().outlet.deliver(out);
        } else if (serverInitiated && ended.push() != null) {
            ended.push().deliver(out);
        }
    }

    /**
     * Closes the registry: no session is admitted from now on, and every live one ends, its held
     * {@code /meta/connect} answered with {@code 503::server_closing} and advice {@code reconnect: handshake}.
     */
    public void close() {
        closed = true;
        for (SessionImpl session : List.copyOf(sessions.values())) {
            remove(session, EndReason.SERVER_CLOSED);
        }
    }

    public boolean isClosed() {
        return closed;
    }

    // ---- draining: see BayeuxServer.drain ----

    /** From now on client handshakes are refused ({@code 503::server_draining}); local sessions are still made. */
    public void startDraining() {
        draining = true;
    }

    public boolean isDraining() {
        return draining;
    }

    /**
     * {@code session}'s drain moment has come: its held {@code /meta/connect} is answered now, or its next one (see
     * {@link #drainIfDue}), with {@code 503::server_draining} and advice {@code reconnect: handshake}, its connection
     * closed behind the answer, and the session ends. The mark comes before the look at the held connect, and a connect
     * is held before it looks at the mark: one of the two sees the other.
     */
    public void drain(SessionImpl session) {
        if (!session.isConnected()) {
            return;
        }
        drainDue.add(session);
        if (session.isHoldingConnect()) {
            remove(session, EndReason.DRAINED);
        }
    }

    /** Whether {@code session}'s drain moment has come ({@link #drain}): its connects are answered for it. */
    public boolean isDrainDue(SessionImpl session) {
        return !drainDue.isEmpty() && drainDue.contains(session);
    }

    /** Ends {@code session} as drained if its moment has come; its held connect (just held, say) is answered for it. */
    public void drainIfDue(SessionImpl session) {
        if (isDrainDue(session)) {
            remove(session, EndReason.DRAINED);
        }
    }

    // ---- admission: sessions in all, per address, per browser ----

    /**
     * Counts a new client session in, unless that would pass {@code maxSessions}, {@code maxSessionsPerAddress} or
     * {@code maxLiveSessionsPerBrowser}: then nothing is counted, and the limit that refused it is returned (and
     * counted as a refusal). Local sessions are server code and are never counted. Give the places back with
     * {@link #release} if the session is not registered after all.
     */
    public Limit admit(SessionImpl session) {
        if (session.isLocal()) {
            return null;
        }
        if (live.incrementAndGet() > options.maxSessions()) {
            live.decrementAndGet();
            return refuse(Limit.SESSIONS);
        }
        if (session.addressKey != null && !take(perAddress, session.addressKey, options.maxSessionsPerAddress())) {
            live.decrementAndGet();
            return refuse(Limit.SESSIONS_PER_ADDRESS);
        }
        if (session.admittedBrowser != null
                && !take(perBrowser, session.admittedBrowser, options.maxLiveSessionsPerBrowser())) {
            live.decrementAndGet();
            if (session.addressKey != null) {
                give(perAddress, session.addressKey);
            }
            return refuse(Limit.SESSIONS_PER_BROWSER);
        }
        session.counted.set(true);
        return null;
    }

    private Limit refuse(Limit limit) {
        refusals.count(limit);
        return limit;
    }

    /** Gives back what {@link #admit} counted for {@code session}; once, whatever the number of calls. */
    public void release(SessionImpl session) {
        if (session.counted.compareAndSet(true, false)) {
            live.decrementAndGet();
            if (session.addressKey != null) {
                give(perAddress, session.addressKey);
            }
            if (session.admittedBrowser != null) {
                give(perBrowser, session.admittedBrowser);
            }
        }
    }

    private static <K> boolean take(ConcurrentHashMap<K, Integer> counts, K key, int max) {
        boolean[] taken = new boolean[1];
        counts.compute(key, (k, count) -> {
            int current = count == null ? 0 : count;
            if (current >= max) {
                return count;
            }
            taken[0] = true;
            return current + 1;
        });
        return taken[0];
    }

    private static <K> void give(ConcurrentHashMap<K, Integer> counts, K key) {
        counts.computeIfPresent(key, (k, count) -> count <= 1 ? null : count - 1);
    }
}
