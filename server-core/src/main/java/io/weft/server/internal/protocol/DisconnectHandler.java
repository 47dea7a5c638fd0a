package io.weft.server.internal.protocol;

import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.EndReason;
import io.weft.server.internal.reply.Replies;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.SessionRegistry;

/** {@code /meta/disconnect}: the session ends; a {@code /meta/connect} it had held is answered with reconnect none. */
final class DisconnectHandler implements MetaHandler {
    private final SessionRegistry sessions;

    DisconnectHandler(SessionRegistry sessions) {
        this.sessions = sessions;
    }

    @Override
    public void handle(BatchRun run, MessageImpl request, SessionImpl session, Promise<Void> done) {
        sessions.remove(session, EndReason.DISCONNECTED);
        run.reply(Replies.success(request));
        done.succeed(null);
    }
}
