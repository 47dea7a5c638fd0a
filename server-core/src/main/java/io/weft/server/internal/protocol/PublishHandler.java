package io.weft.server.internal.protocol;

import io.weft.server.api.BayeuxError;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ChannelId;
import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import io.weft.server.internal.codec.MessageImpl;
import io.weft.server.internal.delivery.Broker;
import io.weft.server.internal.session.SessionImpl;

/**
 * A message to any channel that is not a meta channel the engine handles. Broadcast channels fan out to their
 * subscribers (the publisher too, by default); {@code /service/**} channels go to the server only; the publisher is
 * acknowledged either way. The broadcast copy carries {@code channel}, {@code data} and {@code id}: the publisher's
 * {@code clientId} and {@code ext} stay private.
 */
final class PublishHandler implements MetaHandler {
    private final BayeuxServer server;
    private final Broker broker;
    private final Guard guard;

    PublishHandler(BayeuxServer server, Broker broker, Guard guard) {
        this.server = server;
        this.broker = broker;
        this.guard = guard;
    }

    @Override
    public void handle(BatchRun run, MessageImpl request, SessionImpl session, Promise<Void> done) {
        ChannelId channel = request.getChannelId();
        BayeuxError error = null;
        if (channel.isWild()) {
            error = BayeuxError.CHANNEL_INVALID;
        } else if (!guard.allows("canPublish",
                () -> server.getSecurityPolicy().canPublish(server, session, channel, request))) {
            error = BayeuxError.PUBLISH_DENIED;
        }
        if (error != null) {
            run.reply(Replies.error(request, error));
            done.succeed(null);
            return;
        }
        if (channel.isBroadcast()) {
            broker.publish(broadcastCopy(request), session, run.wakes());
        }
        run.reply(Replies.success(request));
        done.succeed(null);
    }

    private static MessageImpl broadcastCopy(Message request) {
        MessageImpl message = new MessageImpl();
        message.setChannel(request.getChannel());
        message.setData(request.getData());
        Object id = request.get(Message.ID);
        if (id != null) {
            message.put(Message.ID, id);
        }
        return message.freeze();
    }
}
