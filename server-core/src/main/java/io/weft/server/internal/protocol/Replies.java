package io.weft.server.internal.protocol;

import io.weft.server.api.BayeuxError;
import io.weft.server.api.Message;
import io.weft.server.internal.codec.MessageImpl;
import java.util.LinkedHashMap;
import java.util.Map;

/** How replies are built: the request's channel and id echoed, then the outcome. */
final class Replies {
    static final String RECONNECT = "reconnect";
    static final String INTERVAL = "interval";
    static final String TIMEOUT = "timeout";
    static final String MULTIPLE_CLIENTS = "multiple-clients";
    static final String RETRY = "retry";
    static final String HANDSHAKE = "handshake";
    static final String NONE = "none";

    private Replies() {
    }

    /** A reply to {@code request}: its channel and id, not yet successful or failed. */
    static MessageImpl to(Message request) {
        MessageImpl reply = new MessageImpl();
        String channel = request.getChannel();
        if (channel != null) {
            reply.setChannel(channel);
        }
        Object id = request.get(Message.ID);
        if (id != null) {
            reply.put(Message.ID, id);
        }
        return reply;
    }

    static MessageImpl success(Message request) {
        MessageImpl reply = to(request);
        reply.setSuccessful(true);
        return reply;
    }

    static MessageImpl error(Message request, BayeuxError error) {
        MessageImpl reply = to(request);
        reply.setSuccessful(false);
        reply.put(Message.ERROR, error.toString());
        if (error.code() == BayeuxError.SESSION_UNKNOWN.code()) {
            // The official clients handshake again when told so; without this advice they would retry forever.
            reply.put(Message.ADVICE, advice(HANDSHAKE, 0));
        }
        return reply;
    }

    static Map<String, Object> advice(String reconnect, long interval) {
        Map<String, Object> advice = new LinkedHashMap<>(4);
        advice.put(RECONNECT, reconnect);
        advice.put(INTERVAL, interval);
        return advice;
    }
}
