package io.weft.server.internal;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.LocalSession;
import io.weft.server.api.ServerSession;
import io.weft.server.internal.protocol.EngineImpl;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.SessionRegistry;
import io.weft.server.spi.Connection;
import io.weft.server.spi.Inbound;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client inside the JVM, over a connection that never leaves it: messages go to the engine as objects (no JSON),
 * and what the engine sends back is dispatched here, replies to the promises waiting for them and deliveries to
 * the listeners of matching subscriptions.
 */
final class LocalSessionImpl implements LocalSession, Connection {
    /** The connection type of local sessions; never advertised to remote clients. */
    static final String CONNECTION_TYPE = "local";
    private static final Logger LOG = LoggerFactory.getLogger(LocalSessionImpl.class);

    private final SessionRegistry sessions;
    private final String name;
    private final Inbound inbound;
    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentHashMap<String, Promise<Message>> pending = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<ChannelId, CopyOnWriteArrayList<MessageListener>> listeners = new ConcurrentHashMap<>();
    private volatile SessionImpl session;

    LocalSessionImpl(EngineImpl engine, SessionRegistry sessions, String name) {
        this.sessions = sessions;
        this.name = name;
        this.inbound = engine.openLocal(this);
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public void handshake(Promise<Message> reply) {
        if (isConnected()) {
            reply.succeed(null);
            return;
        }
        MessageImpl handshake = request(Message.META_HANDSHAKE);
        handshake.put(Message.VERSION, "1.0");
        send(handshake, Promise.from(answer -> {
            if (answer.isSuccessful()) {
                session = sessions.get(answer.getClientId());
            }
            reply.succeed(answer);
        }, reply::fail));
    }

    @Override
    public boolean isConnected() {
        SessionImpl current = session;
        return current != null && current.isConnected();
    }

    @Override
    public ServerSession getServerSession() {
        return session;
    }

    @Override
    public void subscribe(String channel, MessageListener listener, Promise<Message> reply) {
        ChannelId id = ChannelId.of(channel);
        CopyOnWriteArrayList<MessageListener> list = listeners.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>());
        list.add(listener);
        MessageImpl subscribe = request(Message.META_SUBSCRIBE);
        subscribe.put(Message.SUBSCRIPTION, channel);
        send(subscribe, Promise.from(answer -> {
            if (!answer.isSuccessful()) {
                list.remove(listener);
            }
            reply.succeed(answer);
        }, reply::fail));
    }

    @Override
    public void unsubscribe(String channel, Promise<Message> reply) {
        listeners.remove(ChannelId.of(channel));
        MessageImpl unsubscribe = request(Message.META_UNSUBSCRIBE);
        unsubscribe.put(Message.SUBSCRIPTION, channel);
        send(unsubscribe, reply);
    }

    @Override
    public void publish(String channel, Object data, Promise<Message> reply) {
        MessageImpl publish = request(channel);
        publish.setData(data);
        send(publish, reply);
    }

    @Override
    public void disconnect() {
        if (isConnected()) {
            send(request(Message.META_DISCONNECT), Promise.noop());
        }
        listeners.clear();
        inbound.closed();
    }

    private MessageImpl request(String channel) {
        MessageImpl message = new MessageImpl();
        message.setChannel(channel);
        message.setId(name + "-" + ids.incrementAndGet());
        SessionImpl current = session;
        if (current != null) {
            message.setClientId(current.getId());
        }
        return message;
    }

    private void send(MessageImpl message, Promise<Message> reply) {
        pending.put(message.getId(), reply);
        inbound.receive(List.of(message));
    }

    // ---- Connection: what the engine sends this client ----

    @Override
    public String type() {
        return CONNECTION_TYPE;
    }

    @Override
    public boolean isPersistent() {
        return true;
    }

    @Override
    public String browserId() {
        return null;
    }

    @Override
    public void send(List<Message> messages, Promise<Void> written) {
        for (Message message : messages) {
            receive(message);
        }
        written.succeed(null);
    }

    private void receive(Message message) {
        // A reply is told by what the engine attached to it (the request it answers), never by its fields: a
        // delivery carries only what its publisher could not forge into a reply, and this check does not rely on it.
        if (message.getAssociated() != null) {
            Promise<Message> reply = message.getId() == null ? null : pending.remove(message.getId());
            if (reply != null) {
                reply.succeed(message);
            }
            return;
        }
        ChannelId channel = message.getChannelId();
        if (channel == null || channel.isMeta()) {
            return;
        }
        for (Map.Entry<ChannelId, CopyOnWriteArrayList<MessageListener>> entry : listeners.entrySet()) {
            if (entry.getKey().matches(channel)) {
                for (MessageListener listener : entry.getValue()) {
                    try {
                        listener.onMessage(message);
                    } catch (Throwable x) {
                        LOG.warn("listener of local session {} failed on {}", name, channel, x);
                    }
                }
            }
        }
    }

    @Override
    public String toString() {
        return "LocalSession[" + name + "]";
    }
}
