package io.weft.server.internal.channel;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.server.api.ServerChannel;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.Subscription;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Channels by segment, from a nameless root. Finding who receives a message published to {@code /a/b/c} looks at
 * most at the exact node and, on the way down, {@code /**}, {@code /a/**}, {@code /a/b/**} and {@code /a/b/*}: a
 * walk of the channel's depth, whatever the number of channels.
 */
public final class ChannelTree {
    /** How many sweeps in a row a channel must be unused before it is removed. */
    static final int SWEEPS_BEFORE_REMOVAL = 3;

    private final ChannelNode root = new ChannelNode(this, null, null, "");
    private final ChannelHost host;
    private final AtomicInteger size = new AtomicInteger();
    /**
     * Per address, the channels its clients' subscriptions created that are not removed yet, plus what a subscription
     * in progress has reserved: each address's share of {@code maxChannels}.
     */
    private final ConcurrentHashMap<Object, Integer> createdBy = new ConcurrentHashMap<>();

    /** Who a client subscription creates channels for, and how many it has created so far. */
    public static final class Creation {
        final Object creator;
        int created;

        public Creation(Object creator) {
            this.creator = creator;
        }

        /** How many channels were created for it. */
        public int created() {
            return created;
        }
    }

    public ChannelTree(ChannelHost host) {
        this.host = host;
    }

    ChannelHost host() {
        return host;
    }

    /** How many channels exist. */
    public int size() {
        return size.get();
    }

    /** How many channels subscribing to {@code id} would create: it and its missing ancestors. */
    public int missing(ChannelId id) {
        ChannelNode node = root;
        for (int i = 0; i < id.depth(); i++) {
            node = node.child(id.segment(i));
            if (node == null || node.isRemoved()) {
                return id.depth() - i;
            }
        }
        return 0;
    }

    /** The node for {@code id}, or null if it does not exist. */
    public ChannelNode get(ChannelId id) {
        ChannelNode node = root;
        for (int i = 0; i < id.depth() && node != null; i++) {
            node = node.child(id.segment(i));
        }
        return node;
    }

    /** The node for {@code id}, created with its ancestors if absent. */
    public ChannelNode getOrCreate(ChannelId id) {
        return getOrCreate(id, channel -> { });
    }

    /**
     * Takes {@code count} places in {@code creator}'s share, unless that would pass {@code max}: then nothing is
     * taken and false returned. Give back what a subscription did not create with {@link #adjust}.
     */
    public boolean reserve(Object creator, int count, int max) {
        boolean[] taken = new boolean[1];
        createdBy.compute(creator, (key, current) -> {
            int now = current == null ? 0 : current;
            if (now + count > max) {
                return current;
            }
            taken[0] = true;
            return now + count == 0 ? null : now + count;
        });
        return taken[0];
    }

    /** Changes {@code creator}'s count by {@code delta}: what a reservation did not use, or a channel removed. */
    public void adjust(Object creator, int delta) {
        if (delta != 0) {
            createdBy.compute(creator, (key, current) -> {
                int now = (current == null ? 0 : current) + delta;
                return now <= 0 ? null : now;
            });
        }
    }

    /** The channels {@code creator}'s subscriptions have created and not yet seen removed. */
    public int createdBy(Object creator) {
        return createdBy.getOrDefault(creator, 0);
    }

    /**
     * The node for {@code id}, created with its ancestors if absent; each node this call creates is passed to
     * {@code initializer} (the requested one only) and then announced to channel listeners.
     */
    public ChannelNode getOrCreate(ChannelId id, Consumer<ServerChannel> initializer) {
        return getOrCreate(id, initializer, null);
    }

    private ChannelNode getOrCreate(ChannelId id, Consumer<ServerChannel> initializer, Creation creation) {
        while (true) {
            ChannelNode node = root;
            for (int i = 0; i < id.depth() && node != null; i++) {
                String segment = id.segment(i);
                ChannelNode child = node.child(segment);
                if (child == null || child.isRemoved()) {
                    boolean last = i == id.depth() - 1;
                    boolean[] created = new boolean[1];
                    // An ancestor's id shares the requested id's segments: creating every ancestor stays linear.
                    child = node.childOrCreate(segment, id.prefix(i + 1), created);
                    if (created[0]) {
                        size.incrementAndGet();
                        if (creation != null) {
                            child.creator(creation.creator);
                            creation.created++;
                        }
                        if (last) {
                            initializer.accept(child);
                        }
                        host.channelAdded(child);
                    }
                }
                node = child;
            }
            if (node != null && !node.isRemoved()) {
                return node;
            }
            // A node on the path was swept while we walked it: walk again.
        }
    }

    /**
     * Subscribes {@code session} to {@code id}; false if it already was, or the session has ended.
     *
     * @param message the subscribe message, for listeners; null when server code subscribes
     */
    public boolean subscribe(ChannelId id, SessionImpl session, Message message) {
        return subscribe(id, session, message, Integer.MAX_VALUE) == Subscription.Outcome.ADDED;
    }

    /**
     * Subscribes {@code session} to {@code id} unless it already holds {@code maxSubscriptions} channels.
     *
     * @param message the subscribe message, for listeners; null when server code subscribes
     */
    public Subscription.Outcome subscribe(ChannelId id, SessionImpl session, Message message, int maxSubscriptions) {
        return subscribe(id, session, message, maxSubscriptions, null);
    }

    /**
     * As {@link #subscribe(ChannelId, SessionImpl, Message, int)}, the channels it creates counted for
     * {@code creation}'s address (which has reserved them: see {@link #reserve}), if not null.
     */
    public Subscription.Outcome subscribe(ChannelId id, SessionImpl session, Message message, int maxSubscriptions,
            Creation creation) {
        while (true) {
            ChannelNode node = getOrCreate(id, channel -> { }, creation);
            Boolean added = node.addSubscriber(session);
            if (added == null) {
                continue;
            }
            // The node first, then the session: a session ending meanwhile either lists the node (and leaves it when
            // it ends) or refuses the subscription here, so no ended session stays a subscriber.
            Subscription.Outcome outcome = session.addSubscription(node, maxSubscriptions);
            if (outcome == Subscription.Outcome.FULL || outcome == Subscription.Outcome.ENDED) {
                if (added) {
                    node.removeSubscriber(session);
                }
                return outcome;
            }
            if (added) {
                host.subscribed(session, node, message);
            }
            return added ? Subscription.Outcome.ADDED : Subscription.Outcome.ALREADY;
        }
    }

    /** @param message the unsubscribe message, for listeners; null when server code unsubscribes */
    public boolean unsubscribe(ChannelId id, SessionImpl session, Message message) {
        ChannelNode node = get(id);
        if (node == null) {
            return false;
        }
        session.removeSubscription(node);
        boolean removed = node.removeSubscriber(session);
        if (removed) {
            host.unsubscribed(session, node, message);
        }
        return removed;
    }

    /**
     * The nodes that match {@code channel} (a non-wildcard channel) whether or not they have subscribers, most
     * specific first: the channel, its parent's {@code *}, then the {@code **} of each ancestor from the nearest.
     * For listeners and authorizers.
     */
    public List<ChannelNode> matchingAll(ChannelId channel) {
        List<ChannelNode> path = new ArrayList<>(channel.depth() + 1);
        ChannelNode node = root;
        path.add(root);
        for (int i = 0; i < channel.depth() && node != null; i++) {
            node = node.child(channel.segment(i));
            if (node != null) {
                path.add(node);
            }
        }
        List<ChannelNode> result = new ArrayList<>(4);
        if (path.size() == channel.depth() + 1) {
            addIfPresent(result, path.get(path.size() - 1));
        }
        int parentDepth = channel.depth() - 1;
        for (int depth = Math.min(parentDepth, path.size() - 1); depth >= 0; depth--) {
            ChannelNode ancestor = path.get(depth);
            if (depth == parentDepth) {
                addIfPresent(result, ancestor.child(ChannelId.WILD));
            }
            addIfPresent(result, ancestor.child(ChannelId.DEEP_WILD));
        }
        return result;
    }

    private static void addIfPresent(List<ChannelNode> result, ChannelNode node) {
        // A wildcard channel (a subscription to /a/*) is its own parent's wildcard: list it once.
        if (node != null && !result.contains(node)) {
            result.add(node);
        }
    }

    /**
     * The nodes whose subscribers receive a message published to {@code channel} (a non-wildcard channel) and that
     * have subscribers: the deep wildcards of every ancestor, the single wildcard of the parent, and the channel.
     */
    public List<ChannelNode> matching(ChannelId channel) {
        List<ChannelNode> result = new ArrayList<>(2);
        ChannelNode node = root;
        int depth = channel.depth();
        for (int i = 0; i < depth && node != null; i++) {
            addIfSubscribed(result, node.child(ChannelId.DEEP_WILD));
            if (i == depth - 1) {
                addIfSubscribed(result, node.child(ChannelId.WILD));
            }
            node = node.child(channel.segment(i));
        }
        addIfSubscribed(result, node);
        return result;
    }

    private static void addIfSubscribed(List<ChannelNode> result, ChannelNode node) {
        if (node != null && node.hasSubscribers()) {
            result.add(node);
        }
    }

    /** Every channel, depth first; for snapshots and tests. */
    public void forEach(Consumer<ChannelNode> action) {
        Deque<ChannelNode> stack = new ArrayDeque<>();
        root.children().forEach(stack::push);
        while (!stack.isEmpty()) {
            ChannelNode node = stack.pop();
            action.accept(node);
            node.children().forEach(stack::push);
        }
    }

    /**
     * Removes channels unused for {@link #SWEEPS_BEFORE_REMOVAL} sweeps in a row, leaves first: a parent emptied by
     * this sweep goes in a later one.
     */
    public int sweep() {
        List<ChannelNode> leaves = new ArrayList<>();
        forEach(node -> {
            if (!node.children().iterator().hasNext()) {
                leaves.add(node);
            }
        });
        int removed = 0;
        for (ChannelNode leaf : leaves) {
            if (leaf.sweep(SWEEPS_BEFORE_REMOVAL)) {
                removed++;
                size.decrementAndGet();
                if (leaf.creator() != null) {
                    adjust(leaf.creator(), -1);
                }
                host.channelRemoved(leaf);
            }
        }
        return removed;
    }
}
