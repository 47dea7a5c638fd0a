package io.weft.server.internal.protocol;

import io.weft.server.api.BayeuxError;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.codec.MessageImpl;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.SessionRegistry;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** {@code /meta/handshake}: a new session, if the security policy agrees, with the advice clients follow. */
final class HandshakeHandler implements MetaHandler {
    static final String VERSION = "1.0";

    private final BayeuxServer server;
    private final SessionRegistry sessions;
    private final ServerOptions options;
    private final Supplier<List<String>> connectionTypes;
    private final Guard guard;

    HandshakeHandler(BayeuxServer server, SessionRegistry sessions, Supplier<List<String>> connectionTypes, Guard guard) {
        this.server = server;
        this.sessions = sessions;
        this.options = server.getOptions();
        this.connectionTypes = connectionTypes;
        this.guard = guard;
    }

    @Override
    public void handle(BatchRun run, MessageImpl request, SessionImpl ignored, Promise<Void> done) {
        SessionImpl session = sessions.newSession(run.connection().browserId());
        if (!guard.allows("canHandshake", () -> server.getSecurityPolicy().canHandshake(server, session, request))) {
            MessageImpl reply = Replies.error(request, BayeuxError.HANDSHAKE_DENIED);
            reply.put(Message.ADVICE, Replies.advice(Replies.NONE, 0));
            run.reply(reply);
            done.succeed(null);
            return;
        }
        sessions.register(session);
        session.handshaken(run.endpoint(), run.persistent());
        run.endpoint().bind(session);

        MessageImpl reply = Replies.success(request);
        reply.put(Message.VERSION, VERSION);
        reply.put(Message.SUPPORTED_CONNECTION_TYPES, connectionTypes.get());
        reply.setClientId(session.getId());
        Map<String, Object> advice = Replies.advice(Replies.RETRY, options.interval());
        advice.put(Replies.TIMEOUT, options.timeout());
        reply.put(Message.ADVICE, advice);
        run.reply(reply);
        done.succeed(null);
    }
}
