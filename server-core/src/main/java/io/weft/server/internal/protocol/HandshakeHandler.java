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

    private void accept(BatchRun run, MessageImpl request, SessionImpl session) {
        if (!sessions.register(session)) {
            refuse(run, request, BayeuxError.SERVER_CLOSING);
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
