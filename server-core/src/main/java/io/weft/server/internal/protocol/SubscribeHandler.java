package io.weft.server.internal.protocol;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.Authorizer;
import io.weft.server.api.HistoryRule;
import io.weft.server.api.Limit;
import io.weft.server.internal.app.ExtensionChain;
import io.weft.server.internal.channel.ChannelNode;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.history.Histories;
import io.weft.server.internal.reply.Replies;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.Subscription;
import io.weft.server.internal.util.Steps;
import io.weft.server.spi.History;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code /meta/subscribe}: all of the requested channels, or none. Each must be a valid channel within the client
 * bounds (not a root wildcard unless allowed, the session's subscriptions and the channels in all within their
 * limits) that the security policy and the channel's authorizers allow; the reply echoes {@code subscription} as
 * sent. The channels are authorized one after the other by a loop that does not grow the stack with their number.
 */
final class SubscribeHandler implements MetaHandler {
    private final ChannelTree tree;
    private final Authorization authorization;
    private final Bounds bounds;
    private final Histories histories;
    private final ExtensionChain extensions;

    SubscribeHandler(EngineParts parts, Bounds bounds) {
        this.tree = parts.tree();
        this.histories = parts.histories();
        this.extensions = parts.extensions();
        this.authorization = new Authorization(parts.server(), parts.tree(), parts.guard());
        this.bounds = bounds;
    }

    @Override
    public void handle(BatchRun run, MessageImpl request, SessionImpl session, Promise<Void> done) {
        boolean client = !session.isLocal();
        Subscriptions subscriptions = Subscriptions.of(request, client ? bounds : null);
        BayeuxError error = subscriptions.error();
        if (error == null && client) {
            error = clientBounds(session, subscriptions.channels());
        }
        if (error != null) {
            answer(run, request, error, done);
            return;
        }
        new Authorize(run, request, session, subscriptions.channels(), client, done).start();
    }

    /** Root wildcards, the session's subscriptions and the channels in all; null if within them. */
    private BayeuxError clientBounds(SessionImpl session, List<ChannelId> channels) {
        int fresh = 0;
        int missing = 0;
        for (ChannelId channel : channels) {
            if (channel.isWild() && channel.depth() == 1 && !bounds.options().clientRootWildcards()) {
                bounds.refuse(Limit.ROOT_WILDCARD);
                return BayeuxError.SUBSCRIBE_DENIED.withReason(Limit.ROOT_WILDCARD.option());
            }
            ChannelNode node = tree.get(channel);
            if (node == null || !session.isSubscribed(node)) {
                fresh++;
            }
            missing += tree.missing(channel);
        }
        if (session.subscriptionCount() + fresh > bounds.options().maxSubscriptionsPerSession()) {
            return bounds.refuse(Limit.SUBSCRIPTIONS);
        }
        if (missing > 0 && tree.size() + missing > bounds.options().maxChannels()) {
            return bounds.refuse(Limit.CHANNELS);
        }
        return null;
    }

    private static void answer(BatchRun run, MessageImpl request, BayeuxError error, Promise<Void> done) {
        answer(run, request, error, null, done);
    }

    private static void answer(BatchRun run, MessageImpl request, BayeuxError error, Map<String, Object> recover,
            Promise<Void> done) {
        MessageImpl reply = error == null ? Replies.success(request) : Replies.error(request, error);
        reply.put(Message.SUBSCRIPTION, request.get(Message.SUBSCRIPTION));
        if (recover != null && !recover.isEmpty()) {
            reply.getExt(true).put(History.RECOVER, recover);
        }
        run.reply(reply);
        done.succeed(null);
    }

    /** Asks about each channel in turn (an answer may come later, on another thread), then subscribes to all. */
    private final class Authorize extends Steps {
        private final BatchRun run;
        private final MessageImpl request;
        private final SessionImpl session;
        private final List<ChannelId> channels;
        private final boolean client;
        private final Promise<Void> done;
        private int index;
        private volatile BayeuxError denied;

        Authorize(BatchRun run, MessageImpl request, SessionImpl session, List<ChannelId> channels, boolean client,
                Promise<Void> done) {
            this.run = run;
            this.request = request;
            this.session = session;
            this.channels = channels;
            this.client = client;
            this.done = done;
        }

        void start() {
            run();
        }

        @Override
        protected boolean startNext() {
            if (denied != null) {
                answer(run, request, denied, done);
                return false;
            }
            if (index == channels.size()) {
                subscribeAndRecover();
                return false;
            }
            authorization.check(Authorizer.Operation.SUBSCRIBE, session, channels.get(index++), request, error -> {
                denied = error;
                next();
            });
            return true;
        }

        /**
         * Subscribes, and then reads the history of the channels that keep one: the position of each, and what the
         * client missed since the position it gave ({@code ext.recover}), queued before what is published after.
         */
        private void subscribeAndRecover() {
            Object asked = request.getExt() == null ? null : request.getExt().get(History.RECOVER);
            if (asked instanceof Map<?, ?> positions && client
                    && positions.size() > bounds.options().maxRecoverChannels()) {
                answer(run, request, bounds.refuse(Limit.RECOVER_CHANNELS), done);
                return;
            }
            List<Target> targets = targets(asked instanceof Map<?, ?> positions ? positions : Map.of());
            for (Target target : targets) {
                if (target.recovers()) {
                    session.beginRecovery(target.channel().id());
                }
            }
            BayeuxError error = subscribeAll();
            if (error != null) {
                boolean held = false;
                for (Target target : targets) {
                    if (target.recovers()) {
                        session.abandonRecovery(target.channel().id());
                        held = true;
                    }
                }
                if (held) {
                    session.wake();
                }
                answer(run, request, error, done);
            } else if (targets.isEmpty()) {
                answer(run, request, null, done);
            } else {
                new Reads(run, request, session, targets, done).start();
            }
        }

        /**
         * The history channels of this subscription: each concrete one, and for a wildcard the channels under it the
         * client gave a position for; whether each was received already (then it is not recovered: the session has
         * had its live publications, and its position says nothing of them).
         */
        private List<Target> targets(Map<?, ?> asked) {
            List<Target> targets = new ArrayList<>();
            Set<ChannelId> seen = new HashSet<>();
            for (ChannelId channel : channels) {
                if (!channel.isWild()) {
                    target(channel, asked.get(channel.id()), targets, seen);
                }
            }
            for (Map.Entry<?, ?> entry : asked.entrySet()) {
                if (!(entry.getKey() instanceof String name) || name.length() > bounds.options().maxChannelLength()
                        || !ChannelId.isValid(name)) {
                    continue;
                }
                ChannelId channel = ChannelId.of(name);
                if (!channel.isWild() && channels.stream().anyMatch(c -> c.isWild() && c.matches(channel))) {
                    target(channel, entry.getValue(), targets, seen);
                }
            }
            return targets;
        }

        private void target(ChannelId channel, Object position, List<Target> targets, Set<ChannelId> seen) {
            HistoryRule rule = histories.ruleFor(channel, tree.get(channel));
            if (rule == null || !seen.add(channel)) {
                return;
            }
            boolean receiving = false;
            for (ChannelNode node : tree.matching(channel)) {
                receiving |= session.isSubscribed(node);
            }
            History.Position after = History.Position.from(position);
            targets.add(new Target(channel, rule, after, position != null, receiving));
        }

        /**
         * Subscribes to every channel, or, if the session fills up meanwhile, to none. The channels a client's
         * subscription creates are taken from its address's share first, all or none.
         */
        private BayeuxError subscribeAll() {
            Object address = client ? session.addressKey() : null;
            if (address == null) {
                return subscribeAll(null);
            }
            int missing = 0;
            for (ChannelId channel : channels) {
                missing += tree.missing(channel);
            }
            if (!tree.reserve(address, missing, bounds.options().maxChannelsPerAddress())) {
                return bounds.refuse(Limit.CHANNELS_PER_ADDRESS);
            }
            ChannelTree.Creation creation = new ChannelTree.Creation(address);
            try {
                return subscribeAll(creation);
            } finally {
                // Fewer if another subscription created some meanwhile; more if a sweep removed some meanwhile.
                tree.adjust(address, creation.created() - missing);
            }
        }

        private BayeuxError subscribeAll(ChannelTree.Creation creation) {
            int max = client ? bounds.options().maxSubscriptionsPerSession() : Integer.MAX_VALUE;
            List<ChannelId> added = new ArrayList<>(channels.size());
            for (ChannelId channel : channels) {
                Subscription.Outcome outcome = tree.subscribe(channel, session, request, max, creation);
                if (outcome == Subscription.Outcome.ADDED) {
                    added.add(channel);
                } else if (outcome == Subscription.Outcome.FULL || outcome == Subscription.Outcome.ENDED) {
                    for (ChannelId undo : added) {
                        tree.unsubscribe(undo, session, null);
                    }
                    return outcome == Subscription.Outcome.FULL ? bounds.refuse(Limit.SUBSCRIPTIONS)
                            : BayeuxError.SESSION_UNKNOWN;
                }
            }
            return null;
        }
    }

    /**
     * One history channel of a subscription.
     *
     * @param after the position the client gave, or null (none, or not one)
     * @param asked whether the client asked to recover this channel (it gave something as its position)
     * @param receiving whether the session received this channel already, by another of its subscriptions
     */
    private record Target(ChannelId channel, HistoryRule rule, History.Position after, boolean asked,
            boolean receiving) {
        /** Whether the channel's live publications are held while its history is read. */
        boolean recovers() {
            return after != null && !receiving;
        }
    }

    /** Reads the targets' histories in turn (a read may answer later, on another thread), then answers. */
    private final class Reads extends Steps {
        private final BatchRun run;
        private final MessageImpl request;
        private final SessionImpl session;
        private final List<Target> targets;
        private final Promise<Void> done;
        private final Map<String, Object> recover = new LinkedHashMap<>();
        private int index;

        Reads(BatchRun run, MessageImpl request, SessionImpl session, List<Target> targets, Promise<Void> done) {
            this.run = run;
            this.request = request;
            this.session = session;
            this.targets = targets;
            this.done = done;
        }

        void start() {
            run();
        }

        @Override
        protected boolean startNext() {
            if (index == targets.size()) {
                session.wake();
                answer(run, request, null, recover, done);
                return false;
            }
            Target target = targets.get(index++);
            History.Position after = target.recovers() ? target.after() : null;
            Object address = session.isLocal() ? null : session.addressKey();
            histories.read(target.channel(), target.rule(), after, address, (page, error) -> {
                recover.put(target.channel().id(), result(target, page));
                next();
            });
            return true;
        }

        /** Queues what a read found for one target; its entry in the reply's {@code ext.recover}. */
        private Map<String, Object> result(Target target, History.Page page) {
            Map<String, Object> entry = page == null ? new LinkedHashMap<>() : page.top().toMap();
            if (target.recovers()) {
                List<Message> found = new ArrayList<>();
                if (page != null && page.complete()) {
                    for (Message message : page.messages()) {
                        MessageImpl outgoing = extensions.outgoing(null, session, (MessageImpl) message);
                        if (outgoing != null) {
                            found.add(outgoing);
                        }
                    }
                }
                boolean all = session.finishRecovery(target.channel().id(), page == null ? null : page.top(), found,
                        page != null && page.complete());
                histories.recovery(all, found.size());
                entry.put(History.RECOVERED, all);
            } else if (target.asked()) {
                histories.recovery(false, 0);
                entry.put(History.RECOVERED, false);
            }
            return entry;
        }
    }
}
