package io.weft.server.internal.protocol;

import io.weft.bayeux.Codec;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.JsonCodec;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.app.ExtensionChain;
import io.weft.server.internal.stats.Counters;
import io.weft.server.internal.util.Refusals;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.internal.session.AckTracker;
import io.weft.server.internal.session.Outlet;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.SessionRegistry;
import io.weft.server.spi.Connection;
import io.weft.server.spi.Engine;
import io.weft.server.spi.Inbound;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The {@link Engine} transports talk to: opens endpoints and runs their batches through the handlers. */
public final class EngineImpl implements Engine {
    private final ServerOptions options;
    private final JsonCodec codec;
    private final ExtensionChain extensions;
    private final CopyOnWriteArrayList<String> connectionTypes = new CopyOnWriteArrayList<>();
    private final Dispatcher dispatcher;
    private final Refusals refusals;
    private final Counters counters;
    private final SessionRegistry sessions;

    public EngineImpl(EngineParts parts) {
        this.options = parts.server().getOptions();
        this.codec = parts.codec();
        this.extensions = parts.extensions();
        this.refusals = parts.refusals();
        this.counters = parts.counters();
        this.sessions = parts.sessions();
        this.dispatcher = new Dispatcher(parts, () -> List.copyOf(connectionTypes));
    }

    @Override
    public ServerOptions options() {
        return options;
    }

    @Override
    public Codec codec() {
        return codec;
    }

    @Override
    public void addConnectionType(String type) {
        connectionTypes.addIfAbsent(type);
    }

    @Override
    public Inbound open(Connection connection) {
        return connection.isPersistent() ? new PushEndpoint(this, connection, false) : new PollExchange(this, connection);
    }

    @Override
    public Inbound openStream(Connection connection, String clientId, String lastEventId) {
        PushEndpoint stream = new PushEndpoint(this, connection, false);
        SessionImpl session = clientId == null ? null : sessions.lookup(clientId, connection);
        if (session == null) {
            refuseStream(stream, connection, clientId);
            return stream;
        }
        stream.bind(session);
        Outlet replaced = session.attachStream(stream);
        if (replaced instanceof PushEndpoint older) {
            older.replaced();
        }
        if (replaced == stream) {
            refuseStream(stream, connection, clientId);
            return stream;
        }
        Long lastBatch = batchId(lastEventId);
        AckTracker acks = session.ackTracker();
        if (lastBatch != null && acks != null) {
            // Not acknowledge(), which is for a new /meta/connect: a stream that reconnects leaves its connect held.
            session.requeueFront(acks.acknowledge(lastBatch));
        }
        // What was queued before the stream opened can leave now.
        session.wake();
        return stream;
    }

    /** A stream for no session this browser may reach: one 402 connect reply, and the stream is closed. */
    private void refuseStream(PushEndpoint stream, Connection connection, String clientId) {
        MessageImpl request = new MessageImpl();
        request.setChannel(Message.META_CONNECT);
        if (clientId != null) {
            request.setClientId(clientId);
        }
        stream.deliver(List.of(dispatcher.unknownSession(request)));
        stream.sessionEnded();
    }

    /** An event id as the acknowledgement batch id it is, or null if it is none. */
    private static Long batchId(String lastEventId) {
        if (lastEventId == null || lastEventId.isEmpty() || lastEventId.length() > 19) {
            return null;
        }
        try {
            long id = Long.parseLong(lastEventId);
            return id > 0 ? id : null;
        } catch (NumberFormatException x) {
            return null;
        }
    }

    /** Opens a {@link io.weft.server.api.LocalSession}'s connection: server code, trusted (not part of the SPI). */
    public Inbound openLocal(Connection connection) {
        return new PushEndpoint(this, connection, true);
    }

    @Override
    public void refused(Limit limit) {
        refusals.count(limit);
    }

    @Override
    public void written(String connectionType, long bytes) {
        counters.bytesWritten(connectionType, bytes);
    }

    /** What this server counts of its traffic. */
    Counters counters() {
        return counters;
    }

    void process(Endpoint endpoint, List<Message.Mutable> batch, Promise<Void> processed) {
        counters.received(batch);
        new BatchRun(dispatcher, extensions, endpoint, batch, processed).start();
    }
}
