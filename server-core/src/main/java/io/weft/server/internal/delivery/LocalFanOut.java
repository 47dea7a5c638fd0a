package io.weft.server.internal.delivery;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.internal.channel.ChannelNode;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.util.Guard;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * This node's fan-out through the channel tree, for what is published here and what other nodes publish
 * ({@link Relay}). A session subscribed through several matching channels
 * ({@code /a/b}, {@code /a/*}, {@code /**}) gets the message once. The published channel's own settings decide
 * whether the publisher receives its message and whether the message is lazy.
 */
public final class LocalFanOut {
    private final ChannelTree tree;
    private final Delivery delivery;
    private final boolean broadcastToPublisher;
    private final Guard guard;

    public LocalFanOut(ChannelTree tree, Delivery delivery, boolean broadcastToPublisher, Guard guard) {
        this.tree = tree;
        this.guard = guard;
        this.delivery = delivery;
        this.broadcastToPublisher = broadcastToPublisher;
    }

    /**
     * Queues a frozen message for its recipients and adds them to {@code wakes}.
     *
     * @param publisher the publishing session, or null for a message from server code or another node
     * @return how many sessions it was queued for
     */
    public int publish(MessageImpl message, SessionImpl publisher, Wakes wakes) {
        ChannelId channel = message.getChannelId();
        List<ChannelNode> nodes = tree.matching(channel);
        if (nodes.isEmpty()) {
            return 0;
        }
        ChannelNode exact = tree.get(channel);
        boolean toPublisher = exact == null ? broadcastToPublisher : exact.isBroadcastToPublisher();
        long lazyTimeout = exact != null && exact.isLazy() ? exact.getLazyTimeout() : -1;
        SessionImpl skip = toPublisher ? null : publisher;
        Iterable<SessionImpl> recipients;
        if (nodes.size() == 1) {
            recipients = nodes.get(0).subscribers();
        } else {
            Set<SessionImpl> unique = Collections.newSetFromMap(new IdentityHashMap<>());
            for (ChannelNode node : nodes) {
                unique.addAll(node.subscribers());
            }
            recipients = unique;
        }
        int count = 0;
        for (SessionImpl session : recipients) {
            if (session != skip && deliver(session, publisher, message, lazyTimeout, wakes)) {
                count++;
            }
        }
        return count;
    }

    /** One recipient; whatever goes wrong for it (a transport's failure included) must not end the fan-out. */
    private boolean deliver(SessionImpl session, SessionImpl publisher, MessageImpl message, long lazyTimeout,
            Wakes wakes) {
        try {
            return delivery.deliver(session, publisher, message, lazyTimeout, wakes);
        } catch (Throwable x) {
            guard.failed("delivery to a subscriber", x);
            return false;
        }
    }
}
