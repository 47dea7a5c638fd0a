package io.weft.server.internal.delivery;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.HistoryRule;
import io.weft.server.api.ServerChannel;
import io.weft.server.internal.channel.ChannelNode;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.history.Histories;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.util.Guard;
import io.weft.server.internal.util.Steps;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Publishing, after authorization: the message listeners of the channel and of its wildcards (which may change the
 * message or veto it), then, for a broadcast channel, the frozen copy to this node's subscribers and to the other
 * nodes ({@link Relay}). Used for clients' publishes and for server code's alike.
 */
public final class Publisher {
    private final ChannelTree tree;
    private final LocalFanOut fanOut;
    private final Relay relay;
    private final Histories histories;
    private final Guard guard;

    public Publisher(ChannelTree tree, LocalFanOut fanOut, Relay relay, Histories histories, Guard guard) {
        this.tree = tree;
        this.fanOut = fanOut;
        this.relay = relay;
        this.histories = histories;
        this.guard = guard;
    }

    /**
     * @param message the message as published, still mutable for the listeners
     * @param done told null once the message is published (for a broadcast channel: queued for this node's
     *     subscribers and handed to the other nodes; on a channel with history, kept too), or the error: vetoed by
     *     a listener ({@code MESSAGE_DELETED}), or its history could not take it
     */
    public void publish(SessionImpl from, MessageImpl message, Wakes wakes, Consumer<BayeuxError> done) {
        List<Step> steps = new ArrayList<>();
        for (ChannelNode node : tree.matchingAll(message.getChannelId())) {
            for (ServerChannel.Listener listener : node.getListeners()) {
                if (listener instanceof ServerChannel.MessageListener || listener instanceof ServerChannel.AsyncMessageListener) {
                    steps.add(new Step(node, listener));
                }
            }
        }
        Consumer<Boolean> afterListeners = keep -> {
            if (!keep) {
                done.accept(BayeuxError.MESSAGE_DELETED);
            } else if (message.getChannelId().isBroadcast()) {
                MessageImpl broadcast = broadcastCopy(message);
                // The broadcast shares the published data: from now on neither may change it (the encoding of the
                // broadcast may be under way on another thread).
                message.freeze();
                broadcast(from, broadcast, wakes, done);
            } else {
                done.accept(null);
            }
        };
        if (steps.isEmpty()) {
            afterListeners.accept(true);
        } else {
            new Listening(from, message, steps, afterListeners).start();
        }
    }

    private void broadcast(SessionImpl from, MessageImpl broadcast, Wakes wakes, Consumer<BayeuxError> done) {
        ChannelId channel = broadcast.getChannelId();
        HistoryRule rule = histories.ruleFor(channel, tree.get(channel));
        if (rule == null) {
            fanOut.publish(broadcast, from, wakes);
            relay.published(broadcast);
            done.accept(null);
            return;
        }
        Object address = from == null || from.isLocal() ? null : from.addressKey();
        boolean kept = relay.keepsHistory();
        histories.publish(broadcast, rule, address, stamped -> fanOut.publish(stamped, from, wakes), error -> {
            if (error == null && !kept) {
                // Kept in this node's memory: the other nodes get it without this node's position, and keep it in
                // theirs (each node its own stream, in its own epoch).
                relay.published(broadcast);
            }
            done.accept(error);
        });
    }

    private record Step(ChannelNode channel, ServerChannel.Listener listener) {
    }

    /** The message listeners in turn; one may answer later, on another thread, and the loop goes on there. */
    private final class Listening extends Steps {
        private final SessionImpl from;
        private final MessageImpl message;
        private final List<Step> steps;
        private final Consumer<Boolean> done;
        private int index;
        private volatile boolean vetoed;

        Listening(SessionImpl from, MessageImpl message, List<Step> steps, Consumer<Boolean> done) {
            this.from = from;
            this.message = message;
            this.steps = steps;
            this.done = done;
        }

        void start() {
            run();
        }

        @Override
        protected boolean startNext() {
            if (vetoed || index == steps.size()) {
                done.accept(!vetoed);
                return false;
            }
            Step step = steps.get(index++);
            guard.ask("message listener " + step.listener().getClass().getName(), promise -> {
                if (step.listener() instanceof ServerChannel.AsyncMessageListener async) {
                    async.onMessage(from, step.channel(), message, promise);
                } else {
                    promise.succeed(((ServerChannel.MessageListener) step.listener())
                            .onMessage(from, step.channel(), message));
                }
            }, true, keep -> {
                vetoed = !keep;
                next();
            });
            return true;
        }
    }

    /**
     * What subscribers receive, built from an allow-list of what Bayeux defines for a delivered message: its
     * {@code channel} and {@code data}, and a {@code timestamp} string (the timestamp extension stamps publishes as
     * they arrive). Nothing else the publisher sent travels: not its {@code clientId} or {@code ext}, which are
     * private, and above all not {@code advice}, {@code successful}, {@code error} or {@code id}, which every
     * subscriber's client would take as addressed to itself (the official JavaScript client applies the advice of
     * every message it receives: one publish with {@code reconnect: none} would stop them all). What outgoing
     * extensions add for each recipient is theirs to add. Frozen, so that it is shared and encoded once.
     */
    static MessageImpl broadcastCopy(Message published) {
        MessageImpl copy = new MessageImpl();
        copy.setChannel(published.getChannel());
        Object data = published.getData();
        if (data != null) {
            copy.setData(data);
        }
        if (published.get(Message.TIMESTAMP) instanceof String timestamp) {
            copy.put(Message.TIMESTAMP, timestamp);
        }
        return copy.publishedAt(System.nanoTime()).freeze();
    }
}
