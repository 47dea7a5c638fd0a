package io.weft.server.internal.channel;

import io.weft.server.api.ChannelId;
import io.weft.server.internal.session.SessionImpl;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
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
        while (true) {
            ChannelNode node = root;
            StringBuilder path = new StringBuilder(id.id().length());
            for (int i = 0; i < id.depth() && node != null; i++) {
                String segment = id.segment(i);
                path.append('/').append(segment);
                ChannelNode child = node.child(segment);
                if (child == null || child.isRemoved()) {
                    child = node.childOrCreate(segment, i == id.depth() - 1 ? id : ChannelId.of(path.toString()));
                }
                node = child;
            }
            if (node != null && !node.isRemoved()) {
                return node;
            }
            // A node on the path was swept while we walked it: walk again.
        }
    }

    /** Subscribes {@code session} to {@code id}; false if it already was, or the session has ended. */
    public boolean subscribe(ChannelId id, SessionImpl session) {
        while (true) {
            ChannelNode node = getOrCreate(id);
            Boolean added = node.addSubscriber(session);
            if (added == null) {
                continue;
            }
            if (!session.addSubscription(node)) {
                node.removeSubscriber(session);
                return false;
            }
            return added;
        }
    }

    public boolean unsubscribe(ChannelId id, SessionImpl session) {
        ChannelNode node = get(id);
        if (node == null) {
            return false;
        }
        session.removeSubscription(node);
        return node.removeSubscriber(session);
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
            }
        }
        return removed;
    }
}
