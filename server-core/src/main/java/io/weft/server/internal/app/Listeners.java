package io.weft.server.internal.app;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.EndReason;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerSession;
import io.weft.server.internal.util.Guard;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The server's listeners, and the one place they are told of events, each call guarded. */
public final class Listeners {
    private final CopyOnWriteArrayList<BayeuxServer.Listener> listeners = new CopyOnWriteArrayList<>();
    private final Guard guard;

    public Listeners(Guard guard) {
        this.guard = guard;
    }

    public void add(BayeuxServer.Listener listener) {
        listeners.add(listener);
    }

    public void remove(BayeuxServer.Listener listener) {
        listeners.remove(listener);
    }

    public void sessionAdded(ServerSession session, Message handshake) {
        for (BayeuxServer.Listener listener : listeners) {
            if (listener instanceof BayeuxServer.SessionListener l) {
                guard.run("sessionAdded listener", () -> l.sessionAdded(session, handshake));
            }
        }
    }

    public void sessionRemoved(ServerSession session, EndReason reason) {
        for (BayeuxServer.Listener listener : listeners) {
            if (listener instanceof BayeuxServer.SessionListener l) {
                guard.run("sessionRemoved listener", () -> l.sessionRemoved(session, reason));
            }
        }
    }

    public void channelAdded(ServerChannel channel) {
        for (BayeuxServer.Listener listener : listeners) {
            if (listener instanceof BayeuxServer.ChannelListener l) {
                guard.run("channelAdded listener", () -> l.channelAdded(channel));
            }
        }
    }

    public void channelRemoved(ChannelId channel) {
        for (BayeuxServer.Listener listener : listeners) {
            if (listener instanceof BayeuxServer.ChannelListener l) {
                guard.run("channelRemoved listener", () -> l.channelRemoved(channel));
            }
        }
    }

    /** Tells the server's subscription listeners, then the channel's. */
    public void subscribed(ServerSession session, ServerChannel channel, Message message) {
        for (BayeuxServer.Listener listener : listeners) {
            if (listener instanceof BayeuxServer.SubscriptionListener l) {
                guard.run("subscribed listener", () -> l.subscribed(session, channel, message));
            }
        }
        for (ServerChannel.Listener listener : channelListeners(channel)) {
            if (listener instanceof ServerChannel.SubscriptionListener l) {
                guard.run("channel subscribed listener", () -> l.subscribed(session, channel, message));
            }
        }
    }

    public void unsubscribed(ServerSession session, ServerChannel channel, Message message) {
        for (BayeuxServer.Listener listener : listeners) {
            if (listener instanceof BayeuxServer.SubscriptionListener l) {
                guard.run("unsubscribed listener", () -> l.unsubscribed(session, channel, message));
            }
        }
        for (ServerChannel.Listener listener : channelListeners(channel)) {
            if (listener instanceof ServerChannel.SubscriptionListener l) {
                guard.run("channel unsubscribed listener", () -> l.unsubscribed(session, channel, message));
            }
        }
    }

    private static List<ServerChannel.Listener> channelListeners(ServerChannel channel) {
        return channel.getListeners();
    }
}
