package io.weft.server.internal.protocol;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.internal.session.Outlet;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.spi.Connection;
import io.weft.server.spi.Inbound;
import java.util.List;

/** The engine's side of a connection: one HTTP exchange ({@link PollExchange}) or one WebSocket ({@link PushEndpoint}). */
interface Endpoint extends Inbound, Outlet {
    Connection connection();

    /**
     * Whether this endpoint is a {@link io.weft.server.api.LocalSession}'s, opened by {@link EngineImpl#openLocal}:
     * server code, which no client bound or security policy applies to. A transport cannot open one (whatever
     * connection type it reports).
     */
    default boolean local() {
        return false;
    }

    /** {@code session} handshook or connected through this endpoint. */
    void bind(SessionImpl session);

    /** {@code session} was created by a handshake on this endpoint. */
    default void handshook(SessionImpl session) {
    }

    /**
     * Whether a message naming {@code clientId} may be handled on this endpoint; one that may not is answered as for
     * an unknown session. Every endpoint admits every session but a WebSocket under
     * {@code requireHandshakePerConnection}, which admits only the sessions handshaken on it.
     */
    default boolean admits(String clientId) {
        return true;
    }

    /**
     * The batch is processed: send its replies, unless a held {@code /meta/connect} will answer later, and complete
     * {@code processed} once they are written (see {@link Inbound#receive(List, Promise)}).
     */
    void batchDone(List<Message> replies, boolean held, Promise<Void> processed);
}
