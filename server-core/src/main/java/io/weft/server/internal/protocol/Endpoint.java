package io.weft.server.internal.protocol;

import io.weft.server.api.Message;
import io.weft.server.internal.session.Outlet;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.spi.Connection;
import io.weft.server.spi.Inbound;
import java.util.List;

/** The engine's side of a connection: one HTTP exchange ({@link PollExchange}) or one WebSocket ({@link PushEndpoint}). */
interface Endpoint extends Inbound, Outlet {
    Connection connection();

    /** {@code session} handshook or connected through this endpoint. */
    void bind(SessionImpl session);

    /** The batch is processed: send its replies, unless a held {@code /meta/connect} will answer later. */
    void batchDone(List<Message> replies, boolean held);
}
