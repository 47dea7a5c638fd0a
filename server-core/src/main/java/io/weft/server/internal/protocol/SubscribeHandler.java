package io.weft.server.internal.protocol;

import io.weft.server.api.Authorizer;
import io.weft.server.api.BayeuxError;
import io.weft.server.api.ChannelId;
import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.codec.MessageImpl;
import io.weft.server.internal.session.SessionImpl;
import java.util.List;

/**
 * {@code /meta/subscribe}: all of the requested channels, or none. Each must be a valid channel the security policy
 * and the channel's authorizers allow; the reply echoes {@code subscription} as sent.
 */
final class SubscribeHandler implements MetaHandler {
    private final ChannelTree tree;
    private final Authorization authorization;

    SubscribeHandler(EngineParts parts) {
        this.tree = parts.tree();
        this.authorization = new Authorization(parts.server(), parts.tree(), parts.guard());
    }

    @Override
    public void handle(BatchRun run, MessageImpl request, SessionImpl session, Promise<Void> done) {
        Subscriptions subscriptions = Subscriptions.of(request);
        if (subscriptions.error() != null) {
            answer(run, request, subscriptions.error(), done);
            return;
        }
        authorize(run, request, session, subscriptions.channels(), 0, done);
    }

    private void authorize(BatchRun run, MessageImpl request, SessionImpl session, List<ChannelId> channels,
            int index, Promise<Void> done) {
        if (index == channels.size()) {
            for (ChannelId channel : channels) {
                tree.subscribe(channel, session, request);
            }
            answer(run, request, null, done);
            return;
        }
        authorization.check(Authorizer.Operation.SUBSCRIBE, session, channels.get(index), request, error -> {
            if (error != null) {
                answer(run, request, error, done);
            } else {
                authorize(run, request, session, channels, index + 1, done);
            }
        });
    }

    private static void answer(BatchRun run, MessageImpl request, BayeuxError error, Promise<Void> done) {
        MessageImpl reply = error == null ? Replies.success(request) : Replies.error(request, error);
        reply.put(Message.SUBSCRIPTION, request.get(Message.SUBSCRIPTION));
        run.reply(reply);
        done.succeed(null);
    }
}
