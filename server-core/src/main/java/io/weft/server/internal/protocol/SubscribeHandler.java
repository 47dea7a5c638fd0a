package io.weft.server.internal.protocol;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.Authorizer;
import io.weft.server.api.Limit;
import io.weft.server.internal.channel.ChannelNode;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.reply.Replies;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.Subscription;
import io.weft.server.internal.util.Steps;
import java.util.ArrayList;
import java.util.List;

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

    SubscribeHandler(EngineParts parts, Bounds bounds) {
        this.tree = parts.tree();
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
        MessageImpl reply = error == null ? Replies.success(request) : Replies.error(request, error);
        reply.put(Message.SUBSCRIPTION, request.get(Message.SUBSCRIPTION));
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
                answer(run, request, subscribeAll(), done);
                return false;
            }
            authorization.check(Authorizer.Operation.SUBSCRIBE, session, channels.get(index++), request, error -> {
                denied = error;
                next();
            });
            return true;
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
}
