package io.weft.server.internal.protocol;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.JsonNumbers;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.internal.reply.Advice;
import io.weft.server.internal.reply.Replies;
import io.weft.server.internal.session.ConnectOutcome;
import io.weft.server.internal.session.ConnectRequest;
import io.weft.server.internal.session.Outlet;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.SessionRegistry;
import java.util.List;
import java.util.Map;

/**
 * {@code /meta/connect}: the heartbeat, and on polling transports the carrier of deliveries. The session's state
 * machine decides whether to hold it; this handler prepares the reply and its advice (the session's own timeout and
 * interval, which may differ from the server's).
 *
 * <p>An {@code eventsource} connect comes by POST but belongs to the session's stream: it is held and answered there,
 * as a WebSocket's is on its socket, and its POST answers without it. Without a stream open (not yet, or lost and
 * reconnecting) it is what a long-polling connect is, so that a client whose stream cannot pass still works.
 *
 * <p>While the server drains, a session whose moment has come has its connect answered with
 * {@code 503::server_draining} and advice {@code reconnect: handshake}, its connection going away behind the answer,
 * and ends ({@link SessionRegistry#drain}).
 */
final class ConnectHandler implements MetaHandler {
    /** The connection type of a {@code /meta/connect} answered on the session's stream. */
    static final String EVENTSOURCE = "eventsource";

    private final SessionRegistry sessions;

    ConnectHandler(SessionRegistry sessions) {
        this.sessions = sessions;
    }

    @Override
    public void handle(BatchRun run, MessageImpl request, SessionImpl session, Promise<Void> done) {
        Outlet stream = !run.persistent() && EVENTSOURCE.equals(request.get(Message.CONNECTION_TYPE))
                ? session.stream() : null;
        if (stream != null) {
            onStream(run, request, session, stream);
            done.succeed(null);
            return;
        }
        boolean drained = sessions.isDrainDue(session);
        boolean persistent = run.persistent();
        ConnectRequest connect = new ConnectRequest(run.endpoint(), persistent, run.connection().type(),
                () -> reply(request, session),
                holdMillis(request, session.getTimeout()), persistent || run.batchSize() == 1,
                persistent || run.connection().multiplexed() ? null : run.connection().browserId());
        run.endpoint().bind(session);
        ConnectOutcome outcome = session.connect(connect);
        if (outcome == null) {
            // The session ended after this connect found it: told why, as any later request would be.
            run.reply(Replies.sessionGone(request, session.endReason()));
        } else if (outcome.isHeld()) {
            run.held();
            // Held before this look; the drain marks a session before it looks for a held connect.
            sessions.drainIfDue(session);
        } else if (drained) {
            run.endpoint().goAway();
            run.replies(drainedAnswer(outcome.messages()));
            sessions.drainIfDue(session);
        } else {
            run.replies(outcome.messages());
        }
        if (persistent) {
            // Whatever was queued while the client was away can now be pushed.
            run.wakes().add(session);
        }
        done.succeed(null);
    }

    private void onStream(BatchRun run, MessageImpl request, SessionImpl session, Outlet stream) {
        run.endpoint().bind(session);
        boolean drained = sessions.isDrainDue(session);
        ConnectOutcome outcome = session.connect(new ConnectRequest(stream, true, EVENTSOURCE,
                () -> reply(request, session), holdMillis(request, session.getTimeout()), true, null));
        if (outcome == null) {
            run.reply(Replies.sessionGone(request, session.endReason()));
            return;
        }
        if (outcome.isHeld()) {
            sessions.drainIfDue(session);
        } else if (drained) {
            stream.goAway();
            stream.deliver(drainedAnswer(outcome.messages()));
            sessions.drainIfDue(session);
        } else {
            stream.deliver(outcome.messages());
        }
        run.wakes().add(session);
    }

    /**
     * A drained session's connect answered at once (what was queued for it, then its reply): the reply tells the client
     * to handshake again, elsewhere, as a held one would be told ({@link SessionRegistry#drain}).
     */
    private static List<Message> drainedAnswer(List<Message> answer) {
        Message last = answer.isEmpty() ? null : answer.get(answer.size() - 1);
        if (last instanceof MessageImpl reply && Message.META_CONNECT.equals(reply.getChannel())) {
            Replies.fail(reply, BayeuxError.SERVER_DRAINING);
            Advice.HANDSHAKE_NOW.applyTo(reply);
        }
        return answer;
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
            return Math.max(0, Math.min(JsonNumbers.toLong(asked), timeout));
        }
        return timeout;
    }
}
