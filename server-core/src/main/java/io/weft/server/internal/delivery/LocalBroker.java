package io.weft.server.internal.delivery;

import io.weft.server.api.ChannelId;
import io.weft.server.internal.channel.ChannelNode;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.codec.MessageImpl;
import io.weft.server.internal.session.SessionImpl;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * In-memory fan-out through the channel tree. A session subscribed through several matching channels
 * ({@code /a/b}, {@code /a/*}, {@code /**}) gets the message once.
 */
public final class LocalBroker implements Broker {
    private final ChannelTree tree;
    private final boolean broadcastToPublisher;

    public LocalBroker(ChannelTree tree, boolean broadcastToPublisher) {
        this.tree = tree;
        this.broadcastToPublisher = broadcastToPublisher;
    }

    @Override
    public int publish(MessageImpl message, SessionImpl publisher, Wakes wakes) {
        ChannelId channel = message.getChannelId();
        List<ChannelNode> nodes = tree.matching(channel);
        if (nodes.isEmpty()) {
            return 0;
        }
        SessionImpl skip = broadcastToPublisher ? null : publisher;
        if (nodes.size() == 1) {
            return deliver(nodes.get(0).subscribers(), message, skip, wakes);
        }
        Set<SessionImpl> recipients = Collections.newSetFromMap(new IdentityHashMap<>());
        for (ChannelNode node : nodes) {
            recipients.addAll(node.subscribers());
        }
        return deliver(recipients, message, skip, wakes);
    }

    private static int deliver(Iterable<SessionImpl> recipients, MessageImpl message, SessionImpl skip, Wakes wakes) {
        int count = 0;
        for (SessionImpl session : recipients) {
            if (session != skip && session.enqueue(message)) {
                wakes.add(session);
                count++;
            }
        }
        return count;
    }
}
