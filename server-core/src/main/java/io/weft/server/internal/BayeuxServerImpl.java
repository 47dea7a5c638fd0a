package io.weft.server.internal;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.internal.JsonCodec;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Extension;
import io.weft.server.api.Limit;
import io.weft.server.api.LocalSession;
import io.weft.server.api.Scheduler;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.api.ServerStats;
import io.weft.server.api.Service;
import io.weft.server.internal.app.ExtensionChain;
import io.weft.server.internal.app.Listeners;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.delivery.Delivery;
import io.weft.server.internal.delivery.LocalFanOut;
import io.weft.server.internal.delivery.Publisher;
import io.weft.server.internal.delivery.Relay;
import io.weft.server.internal.history.Histories;
import io.weft.server.internal.protocol.EngineImpl;
import io.weft.server.internal.protocol.EngineParts;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.session.SessionRegistry;
import io.weft.server.internal.stats.Counters;
import io.weft.server.internal.util.Guard;
import io.weft.server.internal.util.Refusals;
import io.weft.server.spi.Broker;
import io.weft.server.spi.Engine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Puts the engine together: codec, sessions, channel tree, extensions, listeners, broker, handlers, sweeps. */
public final class BayeuxServerImpl implements BayeuxServer {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxServerImpl.class);

    private final ServerOptions options;
    private final Scheduler scheduler;
    private final boolean ownsScheduler;
    private final Refusals refusals = new Refusals();
    private final Counters counters = new Counters();
    private final JsonCodec codec;
    private final Guard guard = new Guard();
    private final Listeners listeners = new Listeners(guard);
    private final ExtensionChain extensions = new ExtensionChain(guard);
    private final ConcurrentHashMap<ChannelId, Service> services = new ConcurrentHashMap<>();
    private final ChannelTree tree;
    private final SessionRegistry sessions;
    private final EngineImpl engine;
    private final Relay relay;
    private final Histories histories;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Completed by {@link #close()}: what {@link #drain} callers wait on. */
    private final CompletableFuture<Void> closedStage = new CompletableFuture<>();
    private final AtomicReference<Drain> drain = new AtomicReference<>();
    private volatile SecurityPolicy securityPolicy = SecurityPolicy.DEFAULT;

    public BayeuxServerImpl(ServerOptions options, Scheduler scheduler, boolean ownsScheduler) {
        this.options = Objects.requireNonNull(options, "options");
        this.scheduler = scheduler;
        this.ownsScheduler = ownsScheduler;
        warnOfUnfairShares(options);
        this.codec = new JsonCodec(options.maxJsonDepth(), options.maxMessagesPerBatch(), refusals::count);
        EngineHooks hooks = new EngineHooks(options, listeners, extensions, guard);
        this.tree = new ChannelTree(hooks);
        this.sessions = new SessionRegistry(options, scheduler, refusals, counters, hooks, codec::encodedLength);
        Delivery delivery = new Delivery(extensions);
        LocalFanOut fanOut = new LocalFanOut(tree, delivery, options.broadcastToPublisher(), guard);
        this.relay = new Relay(fanOut, codec, guard);
        this.histories = new Histories(options, scheduler, refusals, relay, codec);
        relay.keepIn(histories, tree);
        Publisher publisher = new Publisher(tree, fanOut, relay, histories, guard);
        hooks.wire(delivery, publisher, relay);
        this.engine = new EngineImpl(new EngineParts(this, codec, sessions, tree, extensions, publisher, listeners,
                guard, refusals, counters, services::get, histories));
        scheduleSweep();
    }

    /** A per-address share as large as its table lets one address fill the table for everyone: worth one line. */
    private static void warnOfUnfairShares(ServerOptions options) {
        if (options.maxSessionsPerAddress() >= options.maxSessions()) {
            LOG.warn("maxSessionsPerAddress ({}) is not below maxSessions ({}): one address can take every session",
                    options.maxSessionsPerAddress(), options.maxSessions());
        }
        if (options.maxChannelsPerAddress() >= options.maxChannels()) {
            LOG.warn("maxChannelsPerAddress ({}) is not below maxChannels ({}): one address can create every channel",
                    options.maxChannelsPerAddress(), options.maxChannels());
        }
    }

    private void scheduleSweep() {
        if (!closed.get()) {
            scheduler.schedule(this::sweep, options.sweepPeriod());
        }
    }

    /** One sweep; whatever it throws, the next is scheduled: a sweep that stopped for good would leak channels. */
    private void sweep() {
        try {
            tree.sweep();
            histories.sweep();
        } catch (Throwable x) {
            guard.failed("channel sweep", x);
        } finally {
            scheduleSweep();
        }
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
    public ServerChannel createChannelIfAbsent(String channelId, Consumer<ServerChannel> initializer) {
        return tree.getOrCreate(ChannelId.of(channelId), Objects.requireNonNull(initializer, "initializer"));
    }

    @Override
    public List<ServerChannel> getChannels() {
        List<ServerChannel> channels = new ArrayList<>();
        tree.forEach(channels::add);
        return channels;
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
    public void addExtension(Extension extension) {
        extensions.add(Objects.requireNonNull(extension, "extension"));
    }

    @Override
    public void removeExtension(Extension extension) {
        extensions.remove(extension);
    }

    @Override
    public List<Extension> getExtensions() {
        return extensions.list();
    }

    @Override
    public void addListener(Listener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void removeListener(Listener listener) {
        listeners.remove(listener);
    }

    @Override
    public LocalSession newLocalSession(String name) {
        return new LocalSessionImpl(engine, sessions, Objects.requireNonNull(name, "name"));
    }

    @Override
    public ServerChannel addService(String channelId, Service service) {
        Objects.requireNonNull(service, "service");
        ChannelId id = ChannelId.of(channelId);
        if (!id.isService() || id.isWild()) {
            throw new IllegalArgumentException("a service needs a /service/ channel without wildcards: " + channelId);
        }
        if (services.putIfAbsent(id, service) != null) {
            throw new IllegalArgumentException("a service is already bound to " + channelId);
        }
        ServerChannel channel = tree.getOrCreate(id);
        channel.setPersistent(true);
        return channel;
    }

    @Override
    public Map<Limit, Long> getRefusals() {
        return refusals.snapshot();
    }

    @Override
    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public ServerStats getStats() {
        TreeMap<String, Integer> byType = new TreeMap<>();
        int held = 0;
        int subscriptions = 0;
        for (SessionImpl session : sessions.sessions()) {
            String type = session.getConnectionType();
            byType.merge(type == null ? "none" : type, 1, Integer::sum);
            if (session.isHoldingConnect()) {
                held++;
            }
            subscriptions += session.subscriptionCount();
        }
        return new ServerStats(Collections.unmodifiableMap(byType), held, tree.size(), subscriptions,
                counters.handshakesAccepted(), counters.handshakesRefused(), counters.received(),
                counters.delivered(), counters.bytesWritten(), codec.encodedMessages(), counters.errors(), counters.slowConsumers(), counters.resent(),
                counters.drained(), refusals.snapshot(), counters.deliveryLatency(), histories.stats());
    }

    public Engine engine() {
        return engine;
    }


    /** Installs a cluster broker ({@link io.weft.server.spi.Broker#install}). */
    synchronized void install(Broker broker) {
        Objects.requireNonNull(broker, "broker");
        if (closed.get()) {
            throw new IllegalStateException("the server is closed");
        }
        if (!sessions.sessions().isEmpty()) {
            throw new IllegalStateException("install the broker before the server has sessions: it has "
                    + sessions.sessions().size());
        }
        relay.install(broker);
    }

    @Override
    public CompletionStage<Void> drain(Duration window) {
        Objects.requireNonNull(window, "window");
        if (window.isNegative()) {
            throw new IllegalArgumentException("a drain window cannot be negative: " + window);
        }
        if (!closed.get()) {
            Drain started = new Drain(sessions, scheduler, guard, this::close);
            if (drain.compareAndSet(null, started)) {
                LOG.info("draining {} sessions over {} ms, then closing", sessions.size(), window.toMillis());
                started.start(window.toMillis(), ThreadLocalRandom.current());
            }
        }
        return closedStage.copy();
    }

    @Override
    public boolean isDraining() {
        return drain.get() != null;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                relay.stop();
                sessions.close();
                if (ownsScheduler) {
                    scheduler.close();
                }
            } finally {
                closedStage.complete(null);
            }
        }
    }
}
