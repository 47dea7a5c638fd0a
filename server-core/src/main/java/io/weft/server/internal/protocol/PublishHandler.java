package io.weft.server.internal.protocol;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.Authorizer;
import io.weft.server.api.Service;
import io.weft.server.internal.delivery.Publisher;
import io.weft.server.internal.reply.Replies;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.util.Guard;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * A message to any channel that is not a meta channel the engine handles: authorized, then through the channel
 * listeners, then broadcast (broadcast channels) or handed to the channel's {@link Service} ({@code /service/**}).
 * The publisher is acknowledged; a service's answer is that acknowledgement's {@code data}.
 */
final class PublishHandler implements MetaHandler {

    private final Authorization authorization;
    private final Publisher publisher;
    private final Function<ChannelId, Service> services;
    private final Guard guard;

    PublishHandler(EngineParts parts) {
        this.authorization = new Authorization(parts.server(), parts.tree(), parts.guard());
        this.publisher = parts.publisher();
        this.services = parts.services();
        this.guard = parts.guard();
    }

    @Override
    public void handle(BatchRun run, MessageImpl request, SessionImpl session, Promise<Void> done) {
        ChannelId channel = request.getChannelId();
        if (channel.isWild()) {
            finish(run, Replies.error(request, BayeuxError.CHANNEL_INVALID), done);
            return;
        }
        authorization.check(Authorizer.Operation.PUBLISH, session, channel, request, error -> {
            if (error != null) {
                finish(run, Replies.error(request, error), done);
            } else {
                publisher.publish(session, request, run.wakes(), failed -> afterListeners(run, request, session,
                        failed, done));
            }
        });
    }

    private void afterListeners(BatchRun run, MessageImpl request, SessionImpl session, BayeuxError failed,
            Promise<Void> done) {
        if (failed != null) {
            finish(run, Replies.error(request, failed), done);
            return;
        }
        Service service = request.getChannelId().isService() ? services.apply(request.getChannelId()) : null;
        if (service == null) {
            finish(run, Replies.success(request), done);
            return;
        }
        AtomicBoolean answered = new AtomicBoolean();
        Promise<Object> answer = Promise.from(data -> {
            if (answered.compareAndSet(false, true)) {
                MessageImpl reply = Replies.success(request);
                reply.setData(data);
                finish(run, reply, done);
            }
        }, failure -> {
            if (answered.compareAndSet(false, true)) {
                guard.failed("service on " + request.getChannel(), failure);
                finish(run, Replies.error(request, BayeuxError.SERVICE_FAILED), done);
            }
        });
        try {
            service.handle(session, request, answer);
        } catch (Throwable x) {
            answer.fail(x);
        }
    }

    private static void finish(BatchRun run, MessageImpl reply, Promise<Void> done) {
        run.reply(reply);
        done.succeed(null);
    }
}
