package io.weft.server.internal.delivery;

import io.weft.server.api.Message;
import io.weft.server.api.ServerChannel;
import io.weft.server.internal.Guard;
import io.weft.server.internal.channel.ChannelNode;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.codec.MessageImpl;
import io.weft.server.internal.session.SessionImpl;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Publishing, after authorization: the message listeners of the channel and of its wildcards (which may change the
 * message or veto it), then, for a broadcast channel, the frozen copy to the broker. Used for clients' publishes and
 * for server code's alike.
 */
public final class Publisher {
    private final ChannelTree tree;
    private final Broker broker;
    private final Guard guard;

    public Publisher(ChannelTree tree, Broker broker, Guard guard) {
        this.tree = tree;
        this.broker = broker;
        this.guard = guard;
    }

    /**
     * @param message the message as published, still mutable for the listeners
     * @param done told whether the message survived the listeners (and was broadcast, for a broadcast channel)
     */
    public void publish(SessionImpl from, MessageImpl message, Wakes wakes, Consumer<Boolean> done) {
        List<Step> steps = new ArrayList<>();
        for (ChannelNode node : tree.matchingAll(message.getChannelId())) {
            for (ServerChannel.Listener listener : node.getListeners()) {
                if (listener instanceof ServerChannel.MessageListener || listener instanceof ServerChannel.AsyncMessageListener) {
                    steps.add(new Step(node, listener));
                }
            }
        }
        runListeners(from, message, steps, 0, keep -> {
            if (keep && message.getChannelId().isBroadcast()) {
                broker.publish(broadcastCopy(message), from, wakes);
            }
            done.accept(keep);
        });
    }

    private record Step(ChannelNode channel, ServerChannel.Listener listener) {
    }

    private void runListeners(SessionImpl from, MessageImpl message, List<Step> steps, int index,
            Consumer<Boolean> done) {
        if (index == steps.size()) {
            done.accept(true);
            return;
        }
        Step step = steps.get(index);
        guard.ask("message listener on " + step.channel(), promise -> {
            if (step.listener() instanceof ServerChannel.AsyncMessageListener async) {
                async.onMessage(from, step.channel(), message, promise);
            } else {
                promise.succeed(((ServerChannel.MessageListener) step.listener()).onMessage(from, step.channel(), message));
            }
        }, true, keep -> {
            if (keep) {
                runListeners(from, message, steps, index + 1, done);
            } else {
                done.accept(false);
            }
        });
    }

    /**
     * What subscribers receive: every field of the published message but the publisher's {@code clientId} and
     * {@code ext}, which stay private; frozen, so that it is shared and encoded once.
     */
    static MessageImpl broadcastCopy(MessageImpl published) {
        MessageImpl copy = new MessageImpl();
        for (String field : published.fieldNames()) {
            if (!Message.CLIENT_ID.equals(field) && !Message.EXT.equals(field)) {
                copy.put(field, published.get(field));
            }
        }
        return copy.freeze();
    }
}
