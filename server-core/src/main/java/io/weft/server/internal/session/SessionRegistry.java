package io.weft.server.internal.session;

import io.weft.server.api.EndReason;
import io.weft.server.api.BayeuxError;
import io.weft.server.api.Message;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.Refusals;
import io.weft.server.internal.channel.ChannelNode;
import io.weft.server.internal.codec.MessageImpl;
import io.weft.server.spi.Scheduler;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live sessions by clientId, the per-browser count of held polls, and the one way a session ends.
 */
public final class SessionRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(SessionRegistry.class);
    /** 144 random bits: above the 128 the protocol notes ask for, and a whole number of base64 characters (24). */
    private static final int ID_BYTES = 18;

    private final ServerOptions options;
    private final Scheduler scheduler;
    private final Refusals refusals;
    private final SecureRandom random = new SecureRandom();
    private final ConcurrentHashMap<String, SessionImpl> sessions = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Integer> browserSlots = new ConcurrentHashMap<>();
    /** Sessions the server ended, remembered for maxInterval so that a client caught between polls is told. */
    private final ConcurrentHashMap<String, EndReason> endedByServer = new ConcurrentHashMap<>();
    private volatile SessionHooks hooks;

    public SessionRegistry(ServerOptions options, Scheduler scheduler, Refusals refusals) {
        this.options = options;
        this.scheduler = scheduler;
        this.refusals = refusals;
    }

    Refusals refusals() {
        return refusals;
    }

    /** Connects sessions to the rest of the engine; set once, before the first session. */
    public void setHooks(SessionHooks hooks) {
        this.hooks = hooks;
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

    Scheduler scheduler() {
        return scheduler;
    }

    /**
     * A new session with a fresh id, bound to {@code browserId} if not null; not live until {@link #register}ed
     * (a handshake the security policy denies never becomes one).
     */
    public SessionImpl newSession(String browserId, boolean local) {
        byte[] bytes = new byte[ID_BYTES];
        random.nextBytes(bytes);
        String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        return new SessionImpl(id, browserId, this, local);
    }

    /** Makes a new session live. */
    public void register(SessionImpl session) {
        if (sessions.putIfAbsent(session.getId(), session) != null) {
            // 144 random bits do not collide; if they ever do, refusing beats merging two clients.
            throw new IllegalStateException("session id collision");
        }
    }

    /** The live session, whoever asks. */
    public SessionImpl get(String clientId) {
        return clientId == null ? null : sessions.get(clientId);
    }

    /**
     * The live session {@code clientId} names, if a request carrying {@code browserId} may act for it; null otherwise,
     * which the engine answers with {@code 402::session_unknown} either way, so a guess learns nothing.
     */
    public SessionImpl lookup(String clientId, String browserId) {
        SessionImpl session = get(clientId);
        if (session == null) {
            return null;
        }
        if (!options.trustClientId() && !session.admits(browserId)) {
            LOG.debug("refusing {}: presented by another browser", session);
            return null;
        }
        return session;
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

    /** How many held polls a browser has; for tests and monitoring. */
    public int heldPolls(String browserId) {
        return browserSlots.getOrDefault(browserId, 0);
    }

    /**
     * Ends a session: it leaves its channels, its held {@code /meta/connect} is answered, and the client is told when
     * the server ended it. Idempotent; safe from any thread.
     */
    public void remove(SessionImpl session, EndReason reason) {
        SessionImpl.Ended ended = session.end();
        if (ended == null) {
            return;
        }
        sessions.remove(session.getId(), session);
        for (ChannelNode channel : ended.subscriptions()) {
            channel.removeSubscriber(session);
        }
        session.released(ended);
        tellClient(ended, reason);
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
            MessageImpl notice = new MessageImpl();
            notice.setChannel("/meta/disconnect").setSuccessful(true);
            if (reason == EndReason.QUEUE_FULL) {
                notice.put(Message.ERROR, BayeuxError.QUEUE_FULL.toString());
            }
            out.add(notice);
        }
        if (ended.held() != null && reason != EndReason.SERVER_CLOSED) {
            MessageImpl reply = ended.held().reply();
            Map<String, Object> advice = reply.getAdvice(true);
            advice.put("reconnect", "none");
            if (reason == EndReason.QUEUE_FULL) {
                reply.setSuccessful(false).put(Message.ERROR, BayeuxError.QUEUE_FULL.toString());
            }
            out.add(reply);
            ended.held().outlet.deliver(out);
        } else if (serverInitiated && ended.push() != null) {
            ended.push().deliver(out);
        }
    }

    /** Ends every session, telling no client: the server is stopping. */
    public void clear() {
        for (SessionImpl session : List.copyOf(sessions.values())) {
            remove(session, EndReason.SERVER_CLOSED);
        }
    }
}
