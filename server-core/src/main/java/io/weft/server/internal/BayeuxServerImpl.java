package io.weft.server.internal;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ChannelId;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.codec.JsonCodec;
import io.weft.server.internal.delivery.LocalBroker;
import io.weft.server.internal.protocol.EngineImpl;
import io.weft.server.internal.session.SessionRegistry;
import io.weft.server.spi.Engine;
import io.weft.server.spi.Scheduler;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/** Puts the engine together: codec, sessions, channel tree, broker, handlers, and the sweep timer. */
public final class BayeuxServerImpl implements BayeuxServer {
    private final ServerOptions options;
    private final Scheduler scheduler;
    private final boolean ownsScheduler;
    private final JsonCodec codec = new JsonCodec();
    private final ChannelTree tree = new ChannelTree();
    private final SessionRegistry sessions;
    private final EngineImpl engine;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile SecurityPolicy securityPolicy = SecurityPolicy.DEFAULT;

    public BayeuxServerImpl(ServerOptions options, Scheduler scheduler, boolean ownsScheduler) {
        this.options = Objects.requireNonNull(options, "options");
        this.scheduler = scheduler;
        this.ownsScheduler = ownsScheduler;
        this.sessions = new SessionRegistry(options, scheduler);
        this.engine = new EngineImpl(this, codec, sessions, tree, new LocalBroker(tree, options.broadcastToPublisher()));
        scheduleSweep();
    }

    private void scheduleSweep() {
        if (!closed.get()) {
            scheduler.schedule(this::sweep, options.sweepPeriod());
        }
    }

    private void sweep() {
        tree.sweep();
        scheduleSweep();
    }

    @Override
    public ServerOptions getOptions() {
        return options;
    }

    @Override
    public ServerChannel getChannel(String channelId) {
        return tree.get(ChannelId.of(channelId));
    }

    @Override
    public ServerChannel createChannelIfAbsent(String channelId) {
        return tree.getOrCreate(ChannelId.of(channelId));
    }

    @Override
    public ServerSession getSession(String clientId) {
        return sessions.get(clientId);
    }

    @Override
    public Collection<ServerSession> getSessions() {
        return List.copyOf(sessions.sessions());
    }

    @Override
    public SecurityPolicy getSecurityPolicy() {
        return securityPolicy;
    }

    @Override
    public void setSecurityPolicy(SecurityPolicy policy) {
        this.securityPolicy = Objects.requireNonNull(policy, "policy");
    }

    @Override
    public Engine engine() {
        return engine;
    }

    /** The codec, whose encode count tests read. */
    public JsonCodec codec() {
        return codec;
    }

    public ChannelTree tree() {
        return tree;
    }

    public SessionRegistry sessions() {
        return sessions;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            sessions.clear();
            if (ownsScheduler) {
                scheduler.close();
            }
        }
    }
}
