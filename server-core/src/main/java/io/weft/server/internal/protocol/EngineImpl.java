package io.weft.server.internal.protocol;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Message;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.codec.JsonCodec;
import io.weft.server.internal.delivery.Broker;
import io.weft.server.internal.session.SessionRegistry;
import io.weft.server.spi.Codec;
import io.weft.server.spi.Connection;
import io.weft.server.spi.Engine;
import io.weft.server.spi.Inbound;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The {@link Engine} transports talk to: opens endpoints and runs their batches through the handlers. */
public final class EngineImpl implements Engine {
    private final ServerOptions options;
    private final JsonCodec codec;
    private final CopyOnWriteArrayList<String> connectionTypes = new CopyOnWriteArrayList<>();
    private final Dispatcher dispatcher;

    public EngineImpl(BayeuxServer server, JsonCodec codec, SessionRegistry sessions, ChannelTree tree, Broker broker) {
        this.options = server.getOptions();
        this.codec = codec;
        Guard guard = new Guard();
        this.dispatcher = new Dispatcher(sessions,
                new HandshakeHandler(server, sessions, () -> List.copyOf(connectionTypes), guard),
                new ConnectHandler(options),
                new SubscribeHandler(server, tree, guard),
                new UnsubscribeHandler(tree),
                new DisconnectHandler(sessions),
                new PublishHandler(server, broker, guard));
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
        return connection.isPersistent() ? new PushEndpoint(this, connection) : new PollExchange(this, connection);
    }

    void process(Endpoint endpoint, List<Message.Mutable> batch) {
        new BatchRun(dispatcher, endpoint, batch).run();
    }
}
