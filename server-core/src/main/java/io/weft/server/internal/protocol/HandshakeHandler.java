package io.weft.server.internal.protocol;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Limit;
import io.weft.server.internal.app.Listeners;
import io.weft.server.internal.reply.Advice;
import io.weft.server.internal.reply.Replies;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.SessionRegistry;
import io.weft.server.internal.util.Guard;
import java.util.List;
import java.util.function.Supplier;

/** {@code /meta/handshake}: a new session, if the security policy agrees, with the advice clients follow. */
final class HandshakeHandler implements MetaHandler {
    static final String VERSION = "1.0";
    /**
     * The {@code interval} advised with a handshake a draining server refuses: long enough for a load balancer that
     * checks {@code /health} every second to have seen the 503 before the client's next try, short enough that a
     * client moved off the node is not kept waiting.
     */
    static final long DRAINING_RETRY_MILLIS = 1_000;

    private final BayeuxServer server;
    private final SessionRegistry sessions;
    private final Listeners listeners;
    private final Guard guard;
    private final Supplier<List<String>> connectionTypes;

    HandshakeHandler(EngineParts parts, Supplier<List<String>> connectionTypes) {
        this.connectionTypes = connectionTypes;
        this.server = parts.server();
        this.sessions = parts.sessions();
        this.listeners = parts.listeners();
        this.guard = parts.guard();
    }

    @Override
    public void handle(BatchRun run, MessageImpl request, SessionImpl ignored, Promise<Void> done) {
        if (sessions.isClosed()) {
            refuse(run, request, BayeuxError.SERVER_CLOSING);
            done.succeed(null);
            return;
        }
        boolean local = run.local();
        if (!local && sessions.isDraining()) {
            refuseDraining(run, request);
            done.succeed(null);
            return;
        }
        SessionImpl session = sessions.newSession(run.connection().browserId(), run.connection().remoteAddress(),
                local ? null : run.connection().request(), local);
        if (local) {
            accept(run, request, session);
            done.succeed(null);
            return;
        }
        Limit refused = sessions.admit(session);
        if (refused != null) {
            refuse(run, request, refused.error());
            done.succeed(null);
            return;
        }
        guard.ask("security policy HANDSHAKE",
                promise -> server.getSecurityPolicy().canHandshake(server, session, request, promise), false,
                allowed -> {
                    if (allowed) {
                        accept(run, request, session);
                    } else {
                        sessions.release(session);
                        run.reply(Replies.error(request, BayeuxError.HANDSHAKE_DENIED, Advice.NONE));
                    }
                    done.succeed(null);
                });
    }

    /**
     * A handshake the server cannot take now (full, or closing): the client is told to try again later, which the
     * official clients do with a growing back-off; behind a balancer, the next try may reach another node.
     */
    private void refuse(BatchRun run, MessageImpl request, BayeuxError error) {
        run.reply(Replies.error(request, error, Advice.handshake(server.getOptions().maxInterval())));
    }

    /**
     * A client's handshake while the server drains: try again shortly, through the balancer (the connection goes away
     * behind the answer), which by then sends it to another node.
     */
    private static void refuseDraining(BatchRun run, MessageImpl request) {
        run.endpoint().goAway();
        run.reply(Replies.error(request, BayeuxError.SERVER_DRAINING, Advice.handshake(DRAINING_RETRY_MILLIS)));
    }

    private void accept(BatchRun run, MessageImpl request, SessionImpl session) {
        if (!sessions.register(session)) {
            if (sessions.isClosed()) {
                refuse(run, request, BayeuxError.SERVER_CLOSING);
            } else {
                refuseDraining(run, request);
            }
            return;
        }
        session.handshaken(run.endpoint(), run.persistent());
        run.endpoint().handshook(session);
        run.endpoint().bind(session);
        run.session(session);
        listeners.sessionAdded(session, request);

        MessageImpl reply = Replies.success(request, Advice.retry(session.getInterval(), session.getTimeout()));
        reply.put(Message.VERSION, VERSION);
        reply.put(Message.SUPPORTED_CONNECTION_TYPES, connectionTypes.get());
        reply.setClientId(session.getId());
        run.reply(reply);
    }
}
