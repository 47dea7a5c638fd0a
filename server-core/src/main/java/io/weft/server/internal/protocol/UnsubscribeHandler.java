package io.weft.server.internal.protocol;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.reply.Replies;
import io.weft.server.internal.session.SessionImpl;

/** {@code /meta/unsubscribe}: leaves the channels; leaving one never joined succeeds. */
final class UnsubscribeHandler implements MetaHandler {
    private final ChannelTree tree;
    private final Bounds bounds;

    UnsubscribeHandler(ChannelTree tree, Bounds bounds) {
        this.tree = tree;
        this.bounds = bounds;
    }

    @Override
    public void handle(BatchRun run, MessageImpl request, SessionImpl session, Promise<Void> done) {
        Subscriptions subscriptions = Subscriptions.of(request, session.isLocal() ? null : bounds);
        BayeuxError error = subscriptions.error();
        MessageImpl reply;
        if (error != null) {
            reply = Replies.error(request, error);
        } else {
            for (ChannelId channel : subscriptions.channels()) {
                tree.unsubscribe(channel, session, request);
            }
            reply = Replies.success(request);
        }
        reply.put(Message.SUBSCRIPTION, request.get(Message.SUBSCRIPTION));
        run.reply(reply);
        done.succeed(null);
    }
}
