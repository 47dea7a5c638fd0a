package io.weft.server.internal.channel;

import io.weft.server.api.ChannelId;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerSession;
import io.weft.server.internal.session.SessionImpl;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A channel in the tree: its subscribers and its children by segment. Reads (publishing) take no lock; structural
 * changes (adding a child, subscribing, being swept) synchronize on the node, and a swept node is marked
 * {@linkplain #isRemoved() removed} so that nobody attaches to it afterwards.
 */
public final class ChannelNode implements ServerChannel {
    private final ChannelTree tree;
    private final ChannelId id;
    private final ChannelNode parent;
    private final String segment;
    private final ConcurrentHashMap<String, ChannelNode> children = new ConcurrentHashMap<>(2);
    private final Set<SessionImpl> subscribers = ConcurrentHashMap.newKeySet(2);
    private volatile boolean persistent;
    private volatile boolean removed;
    private int idleSweeps;

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
        return tree.subscribe(id, (SessionImpl) session);
    }

    @Override
    public boolean unsubscribe(ServerSession session) {
        return tree.unsubscribe(id, (SessionImpl) session);
    }

    /** Adds a subscriber unless this node has been swept; returns null if swept (retry from the tree). */
    synchronized Boolean addSubscriber(SessionImpl session) {
        if (removed) {
            return null;
        }
        idleSweeps = 0;
        return subscribers.add(session);
    }

    public boolean removeSubscriber(SessionImpl session) {
        return subscribers.remove(session);
    }

    ChannelNode child(String name) {
        return children.get(name);
    }

    /** The child for {@code name}, created if absent; null if this node has been swept (retry from the tree). */
    synchronized ChannelNode childOrCreate(String name, ChannelId childId) {
        if (removed) {
            return null;
        }
        idleSweeps = 0;
        return children.computeIfAbsent(name, n -> new ChannelNode(tree, childId, this, n));
    }

    Iterable<ChannelNode> children() {
        return children.values();
    }

    /** A persistent channel is never swept, even with no subscribers. */
    public void setPersistent(boolean persistent) {
        this.persistent = persistent;
    }

    public boolean isPersistent() {
        return persistent;
    }

    public boolean isRemoved() {
        return removed;
    }

    /**
     * One sweep's look at this (leaf) node: counts how many sweeps in a row it has been unused, and removes it from
     * its parent once it has been unused for {@code sweepsBeforeRemoval}.
     */
    synchronized boolean sweep(int sweepsBeforeRemoval) {
        if (persistent || !subscribers.isEmpty() || !children.isEmpty() || parent == null) {
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

    @Override
    public String toString() {
        return id.id();
    }
}
