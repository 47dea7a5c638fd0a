package io.weft.server.internal.channel;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.session.SessionImpl;

/** What the channel tree needs from the server: options, listeners to tell, and publishing. */
public interface ChannelHost {
    ServerOptions options();

    void channelAdded(ChannelNode channel);

    void channelRemoved(ChannelNode channel);

    /** @param message the subscribe message, or null when server code subscribed */
    void subscribed(SessionImpl session, ChannelNode channel, Message message);

    /** @param message the unsubscribe message, or null */
    void unsubscribed(SessionImpl session, ChannelNode channel, Message message);

    /** {@link io.weft.server.api.ServerChannel#publish}: listeners, then fan-out. */
    void publish(SessionImpl from, ChannelNode channel, Object data, Promise<Boolean> delivered);
}
