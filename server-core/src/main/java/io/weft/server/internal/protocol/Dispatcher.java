package io.weft.server.internal.protocol;

import io.weft.server.api.BayeuxError;
import io.weft.server.api.ChannelId;
import io.weft.server.api.Promise;
import io.weft.server.internal.codec.MessageImpl;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.SessionRegistry;

/**
 * Checks what every message must have (well-formed fields, a valid channel, a known session unless it is a
 * handshake) and routes it to the handler of its channel.
 */
final class Dispatcher {
    private final SessionRegistry sessions;
    private final MetaHandler handshake;
    private final MetaHandler connect;
    private final MetaHandler subscribe;
    private final MetaHandler unsubscribe;
    private final MetaHandler disconnect;
    private final MetaHandler publish;

    Dispatcher(SessionRegistry sessions, MetaHandler handshake, MetaHandler connect, MetaHandler subscribe,
            MetaHandler unsubscribe, MetaHandler disconnect, MetaHandler publish) {
        this.sessions = sessions;
        this.handshake = handshake;
        this.connect = connect;
        this.subscribe = subscribe;
        this.unsubscribe = unsubscribe;
        this.disconnect = disconnect;
        this.publish = publish;
    }

    void dispatch(BatchRun run, MessageImpl message, Promise<Void> done) {
        BayeuxError invalid = validate(message);
        if (invalid != null) {
            run.reply(Replies.error(message, invalid));
            done.succeed(null);
            return;
        }
        String channel = message.getChannel();
        if (channel.equals("/meta/handshake")) {
            handshake.handle(run, message, null, done);
            return;
        }
        SessionImpl session = sessions.lookup(message.getClientId(), run.connection().browserId());
        if (session == null) {
            run.reply(Replies.error(message, BayeuxError.SESSION_UNKNOWN));
            done.succeed(null);
            return;
        }
        MetaHandler handler = switch (channel) {
            case "/meta/connect" -> connect;
            case "/meta/subscribe" -> subscribe;
            case "/meta/unsubscribe" -> unsubscribe;
            case "/meta/disconnect" -> disconnect;
            default -> publish;
        };
        handler.handle(run, message, session, done);
    }

    private static BayeuxError validate(MessageImpl message) {
        if (message.decodeError() != null) {
            return message.decodeError();
        }
        if (message.getChannel() == null) {
            return BayeuxError.CHANNEL_MISSING;
        }
        ChannelId channel = message.getChannelId();
        return channel == null ? BayeuxError.CHANNEL_INVALID : null;
    }
}
