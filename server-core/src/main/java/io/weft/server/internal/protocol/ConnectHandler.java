package io.weft.server.internal.protocol;

import io.weft.server.api.BayeuxError;
import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.codec.MessageImpl;
import io.weft.server.internal.session.ConnectOutcome;
import io.weft.server.internal.session.ConnectRequest;
import io.weft.server.internal.session.SessionImpl;
import java.util.Map;

/**
 * {@code /meta/connect}: the heartbeat, and on polling transports the carrier of deliveries. The session's state
 * machine decides whether to hold it; this handler prepares the reply and its advice.
 */
final class ConnectHandler implements MetaHandler {
    private final ServerOptions options;

    ConnectHandler(ServerOptions options) {
        this.options = options;
    }

    @Override
    public void handle(BatchRun run, MessageImpl request, SessionImpl session, Promise<Void> done) {
        MessageImpl reply = Replies.success(request);
        Map<String, Object> advice = Replies.advice(Replies.RETRY, options.interval());
        advice.put(Replies.TIMEOUT, options.timeout());
        reply.put(Message.ADVICE, advice);

        boolean persistent = run.persistent();
        ConnectRequest connect = new ConnectRequest(run.endpoint(), persistent, run.connection().type(), reply,
                holdMillis(request), persistent || run.batchSize() == 1,
                persistent ? null : run.connection().browserId());
        run.endpoint().bind(session);
        ConnectOutcome outcome = session.connect(connect);
        if (outcome == null) {
            run.reply(Replies.error(request, BayeuxError.SESSION_UNKNOWN));
        } else if (outcome.isHeld()) {
            run.held();
        } else {
            if (outcome.multipleClients()) {
                advice.put(Replies.MULTIPLE_CLIENTS, true);
                advice.put(Replies.INTERVAL, options.multiSessionInterval());
            }
            run.replies(outcome.messages());
        }
        if (persistent) {
            // Whatever was queued while the client was away can now be pushed.
            run.wakes().add(session);
        }
        done.succeed(null);
    }

    /** The server's timeout, or less if the client asks (the official clients send 0 on their first connect). */
    private long holdMillis(Message request) {
        Map<String, Object> advice = request.getAdvice();
        if (advice != null && advice.get(Replies.TIMEOUT) instanceof Number asked) {
            return Math.max(0, Math.min(asked.longValue(), options.timeout()));
        }
        return options.timeout();
    }
}
