package io.weft.server.internal.protocol;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.internal.app.ExtensionChain;
import io.weft.server.internal.reply.Replies;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.SessionRegistry;
import java.util.List;
import java.util.function.Supplier;

/**
 * Checks what every message must have (well-formed fields, a valid channel, a known session unless it is a
 * handshake), runs the incoming extensions, and routes the message to the handler of its channel.
 */
final class Dispatcher {
    private final SessionRegistry sessions;
    private final ExtensionChain extensions;
    private final Bounds bounds;
    private final MetaHandler handshake;
    private final MetaHandler connect;
    private final MetaHandler subscribe;
    private final MetaHandler unsubscribe;
    private final MetaHandler disconnect;
    private final MetaHandler publish;

    Dispatcher(EngineParts parts, Supplier<List<String>> connectionTypes) {
        this.sessions = parts.sessions();
        this.extensions = parts.extensions();
        this.bounds = new Bounds(parts.server().getOptions(), parts.refusals());
        this.handshake = new HandshakeHandler(parts, connectionTypes);
        this.connect = new ConnectHandler(parts.sessions());
        this.subscribe = new SubscribeHandler(parts, bounds);
        this.unsubscribe = new UnsubscribeHandler(parts.tree(), bounds);
        this.disconnect = new DisconnectHandler(parts.sessions());
        this.publish = new PublishHandler(parts);
    }

    void dispatch(BatchRun run, MessageImpl message, Promise<Void> done) {
        BayeuxError invalid = validate(message, !run.local());
        if (invalid != null) {
            run.reply(Replies.error(message, invalid));
            done.succeed(null);
            return;
        }
        String channel = message.getChannel();
        boolean isHandshake = channel.equals(Message.META_HANDSHAKE);
        if (!isHandshake && !run.endpoint().admits(message.getClientId())) {
            // Another connection's session (requireHandshakePerConnection): as unknown as a made-up clientId, and
            // nothing of that session's own end is told here.
            run.reply(Replies.error(message, BayeuxError.SESSION_UNKNOWN));
            done.succeed(null);
            return;
        }
        SessionImpl session = isHandshake ? null
                : sessions.lookup(message.getClientId(), run.connection());
        if (!isHandshake && session == null) {
            run.reply(unknownSession(message));
            done.succeed(null);
            return;
        }
        run.session(session);
        extensions.incoming(session, message, keep -> {
            if (!keep) {
                run.reply(Replies.error(message, BayeuxError.MESSAGE_DELETED));
                done.succeed(null);
                return;
            }
            MetaHandler handler = switch (channel) {
                case Message.META_HANDSHAKE -> handshake;
                case Message.META_CONNECT -> connect;
                case Message.META_SUBSCRIBE -> subscribe;
                case Message.META_UNSUBSCRIBE -> unsubscribe;
                case Message.META_DISCONNECT -> disconnect;
                default -> publish;
            };
            handler.handle(run, message, session, done);
        });
    }

    /**
     * The reply for a clientId without a live session: handshake again, unless the server ended that session on
     * purpose (a disconnect, a slow consumer) and the client has not heard of it: then reconnect none.
     */
    MessageImpl unknownSession(MessageImpl message) {
        return Replies.sessionGone(message, sessions.takeEndedByServer(message.getClientId()));
    }

    /** What every message must be; a client's channel is checked against the bounds before it is parsed. */
    private BayeuxError validate(MessageImpl message, boolean client) {
        if (message.decodeError() != null) {
            return message.decodeError();
        }
        String name = message.getChannel();
        if (name == null) {
            return BayeuxError.CHANNEL_MISSING;
        }
        BayeuxError tooLong = client ? bounds.channelLength(name) : null;
        if (tooLong != null) {
            return tooLong;
        }
        ChannelId channel = message.getChannelId();
        if (channel == null) {
            return BayeuxError.CHANNEL_INVALID;
        }
        return client ? bounds.channelDepth(channel) : null;
    }
}
