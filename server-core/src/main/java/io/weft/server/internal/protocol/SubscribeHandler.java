package io.weft.server.internal.protocol;

import io.weft.server.api.BayeuxError;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ChannelId;
import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.codec.MessageImpl;
import io.weft.server.internal.session.SessionImpl;

/**
 * {@code /meta/subscribe}: all of the requested channels, or none. Each must be a valid channel the security policy
 * allows; the reply echoes {@code subscription} as sent.
 */
final class SubscribeHandler implements MetaHandler {
    private final BayeuxServer server;
    private final ChannelTree tree;
    private final Guard guard;

    SubscribeHandler(BayeuxServer server, ChannelTree tree, Guard guard) {
        this.server = server;
        this.tree = tree;
        this.guard = guard;
    }

    @Override
    public void handle(BatchRun run, MessageImpl request, SessionImpl session, Promise<Void> done) {
        Subscriptions subscriptions = Subscriptions.of(request);
        BayeuxError error = subscriptions.error();
        if (error == null) {
            for (ChannelId channel : subscriptions.channels()) {
                if (!guard.allows("canSubscribe",
                        () -> server.getSecurityPolicy().canSubscribe(server, session, channel, request))) {
                    error = BayeuxError.SUBSCRIBE_DENIED;
                    break;
                }
            }
        }
        MessageImpl reply;
        if (error != null) {
            reply = Replies.error(request, error);
        } else {
            for (ChannelId channel : subscriptions.channels()) {
                tree.subscribe(channel, session);
            }
            reply = Replies.success(request);
        }
        reply.put(Message.SUBSCRIPTION, request.get(Message.SUBSCRIPTION));
        run.reply(reply);
        done.succeed(null);
    }
}
