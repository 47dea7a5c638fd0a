package io.weft.server.internal;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.EndReason;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.internal.app.ExtensionChain;
import io.weft.server.internal.app.Listeners;
import io.weft.server.internal.channel.ChannelHost;
import io.weft.server.internal.channel.ChannelNode;
import io.weft.server.internal.delivery.Delivery;
import io.weft.server.internal.delivery.Publisher;
import io.weft.server.internal.delivery.Relay;
import io.weft.server.internal.delivery.Wakes;
import io.weft.server.internal.session.SessionHooks;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.Subscription;
import io.weft.server.internal.util.Guard;
import java.util.List;

/**
 * How the channel tree and the sessions reach the rest of the engine: listeners to tell, extensions to run,
 * delivery and publishing. One instance per server.
 */
final class EngineHooks implements ChannelHost, SessionHooks {
    private final ServerOptions options;
    private final Listeners listeners;
    private final ExtensionChain extensions;
    private final Guard guard;
    private Delivery delivery;
    private Publisher publisher;
    private Relay relay;

    EngineHooks(ServerOptions options, Listeners listeners, ExtensionChain extensions, Guard guard) {
        this.options = options;
        this.listeners = listeners;
        this.extensions = extensions;
        this.guard = guard;
    }

    /**
     * The one part of the assembly not injected at construction: the channel tree is built on these hooks, and
     * publishing and the relay are built on the tree (a channel's {@code publish} walks the tree to its subscribers,
     * and the tree tells the relay which channels this node wants), so one side must be told of the other afterwards.
     * Called once, by {@link BayeuxServerImpl}'s constructor, before the server is reachable by anyone.
     */
    void wire(Delivery delivery, Publisher publisher, Relay relay) {
        this.delivery = delivery;
        this.publisher = publisher;
        this.relay = relay;
    }

    @Override
    public ServerOptions options() {
        return options;
    }

    // ---- channels ----

    @Override
    public void channelAdded(ChannelNode channel) {
        listeners.channelAdded(channel);
    }

    @Override
    public void channelRemoved(ChannelNode channel) {
        listeners.channelRemoved(channel.getChannelId());
    }

    @Override
    public void subscribed(SessionImpl session, ChannelNode channel, Message message) {
        relay.subscribed(channel.getChannelId());
        listeners.subscribed(session, channel, message);
    }

    @Override
    public void unsubscribed(SessionImpl session, ChannelNode channel, Message message) {
        relay.unsubscribed(channel.getChannelId());
        listeners.unsubscribed(session, channel, message);
    }

    @Override
    public void publish(SessionImpl from, ChannelNode channel, Object data, Promise<Boolean> delivered) {
        MessageImpl message = new MessageImpl();
        message.setChannel(channel.getId());
        message.setData(data);
        Wakes wakes = new Wakes();
        publisher.publish(from, message, wakes, failed -> {
            wakes.wakeAll();
            if (failed == null || failed == BayeuxError.MESSAGE_DELETED) {
                delivered.succeed(failed == null);
            } else {
                delivered.fail(new IllegalStateException("not published on " + channel.getId() + ": " + failed));
            }
        });
    }

    // ---- sessions ----

    @Override
    public void beforeConnectReply(SessionImpl session, List<Message> out) {
        int last = out.size() - 1;
        MessageImpl reply = (MessageImpl) out.get(last);
        MessageImpl outgoing = extensions.outgoing(null, session, reply);
        if (outgoing == null) {
            out.remove(last);
        } else if (outgoing != reply) {
            out.set(last, outgoing);
        }
    }

    @Override
    public void queued(SessionImpl session, Message message) {
        for (ServerSession.Listener listener : session.listeners()) {
            if (listener instanceof ServerSession.QueueListener l) {
                guard.run("queue listener", () -> l.queued(session, message));
            }
        }
    }

    @Override
    public void queueFull(SessionImpl session, Message message) {
        for (ServerSession.Listener listener : session.listeners()) {
            if (listener instanceof ServerSession.QueueFullListener l) {
                guard.run("queue full listener", () -> l.queueFull(session, message));
            }
        }
    }

    @Override
    public void ended(SessionImpl session, EndReason reason, List<Subscription> channels) {
        for (Subscription channel : channels) {
            relay.unsubscribed(channel.getChannelId());
            listeners.unsubscribed(session, channel, null);
        }
        for (ServerSession.Listener listener : session.listeners()) {
            if (listener instanceof ServerSession.RemovedListener l) {
                guard.run("session removed listener", () -> l.removed(session, reason));
            }
        }
        listeners.sessionRemoved(session, reason);
    }

    @Override
    public void deliverTo(SessionImpl to, SessionImpl from, MessageImpl message) {
        delivery.deliver(to, from, message.isFrozen() ? message : message.freeze(), -1, null);
    }
}
