package io.weft.server.internal.protocol;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.internal.reply.Advice;
import io.weft.server.internal.reply.Replies;
import io.weft.server.internal.session.ConnectOutcome;
import io.weft.server.internal.session.ConnectRequest;
import io.weft.server.internal.session.SessionImpl;
import java.util.Map;

/**
 * {@code /meta/connect}: the heartbeat, and on polling transports the carrier of deliveries. The session's state
 * machine decides whether to hold it; this handler prepares the reply and its advice (the session's own timeout and
 * interval, which may differ from the server's).
 */
final class ConnectHandler implements MetaHandler {
    @Override
    public void handle(BatchRun run, MessageImpl request, SessionImpl session, Promise<Void> done) {
        boolean persistent = run.persistent();
        ConnectRequest connect = new ConnectRequest(run.endpoint(), persistent, run.connection().type(),
                () -> reply(request, session),
                holdMillis(request, session.getTimeout()), persistent || run.batchSize() == 1,
                persistent ? null : run.connection().browserId());
        run.endpoint().bind(session);
        ConnectOutcome outcome = session.connect(connect);
        if (outcome == null) {
            run.reply(Replies.error(request, BayeuxError.SESSION_UNKNOWN));
        } else if (outcome.isHeld()) {
            run.held();
        } else {
            run.replies(outcome.messages());
        }
        if (persistent) {
            // Whatever was queued while the client was away can now be pushed.
            run.wakes().add(session);
        }
        done.succeed(null);
    }

    /** The reply, built when it is about to be sent: its advice then reflects the session's current settings. */
    private static MessageImpl reply(MessageImpl request, SessionImpl session) {
        MessageImpl reply = Replies.success(request, Advice.retry(session.getInterval(), session.getTimeout()));
        reply.setAssociated(request);
        return reply;
    }

    /** The session's timeout, or less if the client asks (the official clients send 0 on their first connect). */
    private static long holdMillis(Message request, long timeout) {
        Map<String, Object> advice = request.getAdvice();
        if (advice != null && advice.get(Advice.TIMEOUT) instanceof Number asked) {
            return Math.max(0, Math.min(asked.longValue(), timeout));
        }
        return timeout;
    }
}
