package io.weft.transport.websocket;

import io.weft.server.api.Message;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The clientIds one socket has handshaken, for {@code requireHandshakePerConnection}: a message on that socket for any
 * other clientId loses its clientId before the engine sees it, so the engine answers it {@code 402::session_unknown}
 * (with advice to handshake) exactly as it answers an unknown session, and no engine hook is needed.
 *
 * <p>Learned from the replies the socket writes (a successful {@code /meta/handshake} reply carries the new clientId),
 * so a clientId is admitted only once its client could have read it from this very socket. Reads happen on the socket's
 * reading thread, learning on whatever thread writes: both are synchronized on this object.
 */
final class OwnSessions {
    /** A client handshakes again after a 402 on the same socket; old ids are forgotten beyond this many. */
    private static final int MAX_REMEMBERED = 8;

    private final ArrayDeque<String> clientIds = new ArrayDeque<>(2);

    /** Remembers the clientId of every successful handshake reply among {@code outgoing}. */
    void learn(List<Message> outgoing) {
        for (Message message : outgoing) {
            if (message.isSuccessful() && "/meta/handshake".equals(message.getChannel())
                    && message.getClientId() != null) {
                remember(message.getClientId());
            }
        }
    }

    private synchronized void remember(String clientId) {
        if (clientIds.size() == MAX_REMEMBERED) {
            clientIds.pollFirst();
        }
        clientIds.addLast(clientId);
    }

    /** Removes the clientId of every message in {@code batch} that names a session this socket did not handshake. */
    synchronized void restrict(List<Message.Mutable> batch) {
        for (Message.Mutable message : batch) {
            String clientId = message.getClientId();
            if (clientId != null && !"/meta/handshake".equals(message.getChannel()) && !clientIds.contains(clientId)) {
                message.put(Message.CLIENT_ID, null);
            }
        }
    }
}
