package io.weft.server.internal.channel;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Promise;
import io.weft.server.api.Authorizer;
import io.weft.server.api.HistoryRule;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerSession;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.Subscription;
import io.weft.server.internal.util.LazyList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A channel in the tree: its subscribers, listeners, authorizers and children by segment. Reads (publishing) take no
 * lock; structural changes (adding a child, subscribing, being swept) synchronize on the node, and a swept node is
 * marked {@linkplain #isRemoved() removed} so that nobody attaches to it afterwards. Listener and authorizer lists
 * are created on first use.
 */
public final class ChannelNode implements Subscription {
    private final ChannelTree tree;
    private final ChannelId id;
    private final ChannelNode parent;
    private final String segment;
    private final ConcurrentHashMap<String, ChannelNode> children = new ConcurrentHashMap<>(2);
    private final Set<SessionImpl> subscribers = ConcurrentHashMap.newKeySet(2);
    private final LazyList<Listener> listeners = new LazyList<>();
    private final LazyList<Authorizer> authorizers = new LazyList<>();
    private volatile boolean persistent;
    private volatile boolean lazy;
    private volatile long lazyTimeout = -1;
    private volatile Boolean broadcastToPublisher;
    private volatile HistoryRule history;
    private volatile boolean removed;
    private int idleSweeps;
    /** The address whose client subscription created this channel (its share of maxChannels), or null. */
    private volatile Object creator;

    ChannelNode(ChannelTree tree, ChannelId id, ChannelNode parent, String segment) {
        this.tree = tree;
        this.id = id;
        this.parent = parent;
        this.segment = segment;
    }

    @Override
    public ChannelId getChannelId() {
        return id;
    }

    @Override
    public Set<ServerSession> getSubscribers() {
        return Collections.unmodifiableSet(Set.copyOf(subscribers));
    }

    /** The live subscriber set, for fan-out; iteration is weakly consistent. */
    public Set<SessionImpl> subscribers() {
        return subscribers;
    }

    public boolean hasSubscribers() {
        return !subscribers.isEmpty();
    }

    @Override
    public boolean subscribe(ServerSession session) {
        return tree.subscribe(id, (SessionImpl) session, null);
    }

    @Override
    public boolean unsubscribe(ServerSession session) {
        return tree.unsubscribe(id, (SessionImpl) session, null);
    }

    @Override
    public void publish(ServerSession from, Object data, Promise<Boolean> delivered) {
        if (!id.isBroadcast() && !id.isService()) {
            throw new IllegalArgumentException("cannot publish to " + id + ": not a broadcast or service channel");
        }
        tree.host().publish((SessionImpl) from, this, data, delivered);
    }

    /** Adds a subscriber unless this node has been swept; returns null if swept (retry from the tree). */
    synchronized Boolean addSubscriber(SessionImpl session) {
        if (removed) {
            return null;
        }
        idleSweeps = 0;
        return subscribers.add(session);
    }

    @Override
    public boolean removeSubscriber(SessionImpl session) {
        return subscribers.remove(session);
    }

    ChannelNode child(String name) {
        return children.get(name);
    }

    /**
     * The child for {@code name}, created if absent; null if this node has been swept (retry from the tree).
     * {@code created[0]} is set when this call created it.
     */
    synchronized ChannelNode childOrCreate(String name, ChannelId childId, boolean[] created) {
        if (removed) {
            return null;
        }
        idleSweeps = 0;
        return children.computeIfAbsent(name, n -> {
            created[0] = true;
            return new ChannelNode(tree, childId, this, n);
        });
    }

    Iterable<ChannelNode> children() {
        return children.values();
    }

    @Override
    public boolean isPersistent() {
        return persistent;
    }

    @Override
    public void setPersistent(boolean persistent) {
        this.persistent = persistent;
    }

    @Override
    public boolean isLazy() {
        return lazy;
    }

    @Override
    public void setLazy(boolean lazy) {
        this.lazy = lazy;
    }

    @Override
    public long getLazyTimeout() {
        long own = lazyTimeout;
        long max = tree.host().options().maxLazyTimeout();
        return own >= 0 ? Math.min(own, max) : max;
    }

    @Override
    public void setLazyTimeout(long millis) {
        this.lazyTimeout = millis;
    }

    @Override
    public boolean isBroadcastToPublisher() {
        Boolean own = broadcastToPublisher;
        return own != null ? own : tree.host().options().broadcastToPublisher();
    }

    @Override
    public void setBroadcastToPublisher(boolean broadcastToPublisher) {
        this.broadcastToPublisher = broadcastToPublisher;
    }

    @Override
    public HistoryRule getHistory() {
        HistoryRule own = history;
        if (own != null) {
            return own;
        }
        if (!id.isBroadcast() || id.isWild()) {
            return null;
        }
        for (HistoryRule rule : tree.host().options().history()) {
            if (rule.covers(id)) {
                return rule;
            }
        }
        return null;
    }

    @Override
    public void setHistory(HistoryRule rule) {
        if (rule != null && (!id.isBroadcast() || id.isWild())) {
            throw new IllegalArgumentException("history is for concrete broadcast channels, not " + id);
        }
        this.history = rule;
    }

    @Override
    public void addListener(Listener listener) {
        synchronized (this) {
            idleSweeps = 0;
        }
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void removeListener(Listener listener) {
        listeners.remove(listener);
    }

    @Override
    public List<Listener> getListeners() {
        return listeners.get();
    }

    @Override
    public void addAuthorizer(Authorizer authorizer) {
        synchronized (this) {
            idleSweeps = 0;
        }
        authorizers.add(Objects.requireNonNull(authorizer, "authorizer"));
    }

    @Override
    public void removeAuthorizer(Authorizer authorizer) {
        authorizers.remove(authorizer);
    }

    @Override
    public List<Authorizer> getAuthorizers() {
        return authorizers.get();
    }

    public boolean isRemoved() {
        return removed;
    }

    /**
     * One sweep's look at this (leaf) node: counts how many sweeps in a row it has been unused (no subscribers,
     * listeners, authorizers or children, not persistent), and removes it from its parent once it has been unused
     * for {@code sweepsBeforeRemoval}.
     */
    synchronized boolean sweep(int sweepsBeforeRemoval) {
        boolean used = persistent || !subscribers.isEmpty() || !children.isEmpty() || !getListeners().isEmpty()
                || !getAuthorizers().isEmpty();
        if (used || parent == null) {
            idleSweeps = 0;
            return false;
        }
        if (++idleSweeps < sweepsBeforeRemoval) {
            return false;
        }
        removed = true;
        parent.children.remove(segment, this);
        return true;
    }

    Object creator() {
        return creator;
    }

    void creator(Object address) {
        this.creator = address;
    }

    @Override
    public String toString() {
        return id.id();
    }
}
