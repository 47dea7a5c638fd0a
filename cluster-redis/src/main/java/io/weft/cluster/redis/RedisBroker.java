package io.weft.cluster.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.server.api.HistoryRule;
import io.weft.server.spi.Broker;
import io.weft.server.spi.History;
import io.weft.server.spi.QuietLog;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster {@link Broker} on Redis pub/sub: every broadcast published on this node is PUBLISHed to Redis once, and
 * what the other nodes publish comes back through Redis to this node's subscribers, fanned out by the engine.
 *
 * <pre>
 * publish here -> engine's local fan-out (this node's subscribers)
 *              -> encode once -> "nodeId number\n" + JSON -> PUBLISH weft:/chat/room   (the publish connection)
 * Redis -> SUBSCRIBE weft:/chat/room, PSUBSCRIBE weft:/chat/*                            (the pub/sub connection)
 *       -> not wanted here? a copy already delivered? our own? drop -> decode -> hub.deliver (each session once)
 * </pre>
 *
 * <p>Two connections, made by Lettuce and driven asynchronously (no method blocks the engine's threads): one publishes,
 * in the order the engine hands messages over, so each publisher's order holds on every node; one carries every
 * subscription of this node, which are only what its sessions subscribe to (a channel's or pattern's first local
 * subscriber subscribes it in Redis, its last one unsubscribes it).
 *
 * <p>With {@link RedisBrokerOptions#sharded}, on a Redis Cluster: a publish is SPUBLISHed to its channel's name and
 * to the names of the wildcards that could match it ({@link ShardNames}), each on the shard that owns its slot, and
 * each name a session needs is SSUBSCRIBEd on its shard; one publish and one pub/sub connection per shard. Each
 * publisher's order then holds per channel, not across channels on different shards.
 *
 * <p>With {@link RedisBrokerOptions#history} (the default) it also keeps the history of channels with a history rule
 * ({@link #keepsHistory}): one script per publish on such a channel numbers it, keeps it in the channel's Redis Stream
 * and publishes it, and every node, this one included, delivers it with its position; one script per read
 * ({@link RedisHistory}, {@link HistoryKeys}).
 *
 * <p>When Redis goes away, each node's own fan-out goes on; publishes meanwhile fail at once, are counted
 * ({@link Stats#publishFailures}) and logged in one line (then a summary per minute), not one stack trace each. Lettuce
 * reconnects by itself, subscribes again to what this node had, and cross-node delivery resumes; what was published
 * while Redis was away is not delivered to other nodes later (Redis pub/sub keeps nothing).
 *
 * <pre>
 * RedisBroker broker = RedisBroker.create("redis://127.0.0.1:6379");
 * Broker.install(bayeux, broker);   // before the server takes clients; connects now
 * </pre>
 */
public final class RedisBroker implements Broker {
    private static final Logger LOG = LoggerFactory.getLogger(RedisBroker.class);
    private static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);
    /** How often the cluster clients read the topology again, besides when a MOVED or a lost shard tells them to. */
    private static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(30);
    /**
     * How long Lettuce's threads keep taking tasks once the clients are shut down, so that a topology refresh under
     * way (after a MOVED reply, say) mostly finishes instead of failing, with Lettuce's stack trace, on threads that
     * are gone (not always: it can still fail on the connections the shutdown closed).
     */
    private static final Duration QUIET_BEFORE_STOP = Duration.ofMillis(200);
    /** How long {@link #stop()} waits for the clients and their threads to be gone. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(5);

    private final RedisBrokerOptions options;
    private final String nodeId = newNodeId();
    private final byte[] envelopePrefix = Envelope.prefix(nodeId);
    private final RedisNames names;
    private final ShardNames shardNames;
    private final Counters counters = new Counters();
    private final QuietLog publishFailures = new QuietLog(RedisBroker.class, "publishes to Redis that failed");
    private final QuietLog historyFailures = new QuietLog(RedisBroker.class,
            "publishes and reads of channel history in Redis that failed");
    private final QuietLog callbackFailures = new QuietLog(RedisBroker.class, "history callbacks that threw");
    /** Numbers this node's publishes in the order they are handed to the publish connection. */
    private final Object publishOrder = new Object();
    private long lastNumber;

    private volatile Hub hub;
    private volatile ClientResources resources;
    private volatile AbstractRedisClient publishClient;
    private volatile AbstractRedisClient pubSubClient;
    private volatile StatefulConnection<String, byte[]> publishConnection;
    private volatile StatefulConnection<String, byte[]> pubSubConnection;
    private volatile RedisAsyncCommands<String, byte[]> publisher;
    private volatile RedisAdvancedClusterAsyncCommands<String, byte[]> shardPublisher;
    /** Channel history in Redis, over the publish connection; null if {@link RedisBrokerOptions#history} is off. */
    private volatile RedisHistory redisHistory;
    /** Sharded: what puts history channels back in offset order on receipt. */
    private volatile ChannelOrder channelOrder;
    private volatile Subscriptions subscriptions;
    private volatile Link publishLink;
    private volatile Link pubSubLink;
    private volatile boolean stopped;

    private RedisBroker(RedisBrokerOptions options) {
        this.options = Objects.requireNonNull(options, "options");
        this.names = new RedisNames(options.channelPrefix());
        this.shardNames = new ShardNames(options.channelPrefix());
    }

    /** A broker for the Redis at {@code uri} ({@code redis://host:port}), with the other options' defaults. */
    public static RedisBroker create(String uri) {
        return new RedisBroker(RedisBrokerOptions.of(uri));
    }

    public static RedisBroker create(RedisBrokerOptions options) {
        return new RedisBroker(options);
    }

    /**
     * Connects to Redis, waiting up to {@link RedisBrokerOptions#connectTimeout} for each connection: a node that
     * cannot reach Redis when it starts fails to start, naming the address. With {@link RedisBrokerOptions#sharded},
     * it reads the cluster's topology from the first seed that answers, and connects to every master. Called by
     * {@link Broker#install}, on the installing thread.
     *
     * @throws IllegalStateException if Redis cannot be reached
     */
    @Override
    public synchronized void start(Hub hub) {
        if (this.hub != null) {
            throw new IllegalStateException("started already");
        }
        this.hub = Objects.requireNonNull(hub, "hub");
        List<RedisURI> uris = new ArrayList<>();
        for (String seed : options.seeds()) {
            RedisURI uri = RedisURI.create(seed);
            uri.setTimeout(options.connectTimeout());
            uris.add(uri);
        }
        resources = ClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(1)
                .reconnectDelay(() -> Delay.exponential(Duration.ofMillis(1), options.maxReconnectDelay(), 2,
                        TimeUnit.MILLISECONDS))
                .build();
        publishLink = new Link("publish", nodeId, counters, () -> stopped, null, () -> { });
        try {
            if (options.sharded()) {
                startSharded(uris);
            } else {
                startPlain(uris.get(0));
            }
        } catch (RuntimeException x) {
            stop();
            throw new IllegalStateException("cannot reach Redis at " + addresses(uris) + ": " + x, x);
        }
        LOG.info("Weft node {} on Redis {}{}, channels {}*", nodeId, options.sharded() ? "Cluster (sharded pub/sub) "
                : "", addresses(uris), options.channelPrefix());
    }

    private void startPlain(RedisURI uri) {
        SocketOptions socket = SocketOptions.builder().connectTimeout(options.connectTimeout()).build();
        // Publishes fail at once while disconnected (counted), and are never sent twice after a reconnect.
        RedisClient publishing = RedisClient.create(resources, uri);
        publishClient = publishing;
        publishing.setOptions(ClientOptions.builder()
                .socketOptions(socket)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(options.maxPendingPublishes())
                .timeoutOptions(TimeoutOptions.enabled(options.commandTimeout()))
                .build());
        publishing.addListener(publishLink);
        StatefulRedisConnection<String, byte[]> publish = publishing.connect(CODEC);
        publishConnection = publish;
        if (options.history()) {
            publish.sync().scriptLoad(RedisHistory.PUBLISH.text());
            publish.sync().scriptLoad(RedisHistory.READ.text());
            redisHistory = new RedisHistory(publish.async(), new HistoryKeys(options.channelPrefix()), names, false);
        }
        publisher = publish.async();

        // (P)SUBSCRIBE while disconnected are queued and sent after Lettuce's own resubscription.
        RedisClient listening = RedisClient.create(resources, uri);
        pubSubClient = listening;
        listening.setOptions(ClientOptions.builder()
                .socketOptions(socket)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .build());
        pubSubLink = new Link("pub/sub", nodeId, counters, () -> stopped, () -> subscriptions, () -> { });
        listening.addListener(pubSubLink);
        StatefulRedisPubSubConnection<String, byte[]> connection = listening.connectPubSub(CODEC);
        pubSubConnection = connection;
        subscriptions = Subscriptions.plain(names, connection.async(), counters.subscribeFailures);
        connection.addListener(new Receiver(nodeId, names, subscriptions, hub, counters, null));
    }

    /**
     * Sharded pub/sub on a Redis Cluster: a cluster client publishes with SPUBLISH, routed by slot to each name's
     * shard; another SSUBSCRIBEs, each name on its shard's connection. Both connect to every master now, so that the
     * first commands to a shard are not left waiting on (and reordered behind) a connection being made.
     */
    private void startSharded(List<RedisURI> seeds) {
        // Lettuce 7 refreshes on a MOVED reply, a lost shard and an uncovered slot by itself; and periodically:
        ClusterTopologyRefreshOptions topology = ClusterTopologyRefreshOptions.builder()
                .enablePeriodicRefresh(TOPOLOGY_REFRESH)
                .build();
        SocketOptions socket = SocketOptions.builder().connectTimeout(options.connectTimeout()).build();
        RedisClusterClient publishing = RedisClusterClient.create(resources, seeds);
        publishClient = publishing;
        publishing.setOptions(ClusterClientOptions.builder()
                .socketOptions(socket)
                .topologyRefreshOptions(topology)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(options.maxPendingPublishes())
                .timeoutOptions(TimeoutOptions.enabled(options.commandTimeout()))
                .build());
        publishing.addListener(publishLink);
        StatefulRedisClusterConnection<String, byte[]> publish = publishing.connect(CODEC);
        publishConnection = publish;
        for (RedisClusterNode master : masters(publishing)) {
            StatefulRedisConnection<String, byte[]> shard = publish.getConnection(master.getUri().getHost(),
                    master.getUri().getPort());
            if (options.history()) { // else each shard's first scripts after start would go twice (EVALSHA, EVAL)
                shard.sync().scriptLoad(RedisHistory.PUBLISH.text());
                shard.sync().scriptLoad(RedisHistory.READ.text());
            }
        }
        if (options.history()) {
            redisHistory = new RedisHistory(publish.async(), new HistoryKeys(options.channelPrefix()), names, true);
        }
        shardPublisher = publish.async();

        RedisClusterClient listening = RedisClusterClient.create(resources, seeds);
        pubSubClient = listening;
        listening.setOptions(ClusterClientOptions.builder()
                .socketOptions(socket)
                .topologyRefreshOptions(topology)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .build());
        pubSubLink = new Link("pub/sub", nodeId, counters, () -> stopped, () -> subscriptions,
                this::subscribeAgain);
        listening.addListener(pubSubLink);
        StatefulRedisClusterPubSubConnection<String, byte[]> connection = listening.connectPubSub(CODEC);
        pubSubConnection = connection;
        for (RedisClusterNode master : masters(listening)) {
            connection.getConnection(master.getUri().getHost(), master.getUri().getPort());
        }
        subscriptions = Subscriptions.sharded(shardNames, connection.async(), resources.eventExecutorGroup(),
                options.maxReconnectDelay(), counters.subscribeFailures);
        ClientResources threads = resources;
        ChannelOrder order = new ChannelOrder(hub::deliver, (task, millis) -> {
            try {
                threads.eventExecutorGroup().schedule(task, millis, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException stopping) { // what is held goes with the broker
            }
        }, counters.historyGaps, counters.copies);
        channelOrder = order;
        connection.addListener(new Receiver(nodeId, names, subscriptions, hub, counters, order));
    }

    /**
     * A connection of the pub/sub client is back: SSUBSCRIBE every name wanted now again, each routed to its shard,
     * one per command (see {@link Subscriptions}); names a shard has already are no change.
     */
    private void subscribeAgain() {
        Subscriptions subscribed = subscriptions;
        if (subscribed != null && !stopped) {
            subscribed.subscribeAgain();
        }
    }

    private static List<RedisClusterNode> masters(RedisClusterClient client) {
        List<RedisClusterNode> masters = new ArrayList<>();
        for (RedisClusterNode node : client.getPartitions()) {
            if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                masters.add(node);
            }
        }
        return masters;
    }

    private static String addresses(List<RedisURI> uris) {
        StringBuilder text = new StringBuilder();
        for (RedisURI uri : uris) {
            text.append(text.isEmpty() ? "" : ",").append(uri.getHost()).append(':').append(uri.getPort());
        }
        return text.toString();
    }

    @Override
    public void publish(Message message) {
        if (hub == null || stopped) {
            return;
        }
        byte[] json = hub.codec().encode(List.of(message));
        CompletableFuture<?> reply;
        synchronized (publishOrder) {
            reply = send(message.getChannelId(), Envelope.wrap(envelopePrefix, ++lastNumber, json));
        }
        if (reply != null) {
            reply.whenComplete((receivers, failure) -> published(message.getChannel(), failure));
        }
    }

    /**
     * PUBLISH once, or SPUBLISH to each shard channel the publish goes to ({@link ShardNames#published}); null if
     * not connected. Each Redis name gets this node's publishes in the order of the calls.
     */
    private CompletableFuture<?> send(ChannelId channel, byte[] payload) {
        RedisAsyncCommands<String, byte[]> plain = publisher;
        if (plain != null) {
            return plain.publish(names.channel(channel.id()), payload).toCompletableFuture();
        }
        RedisAdvancedClusterAsyncCommands<String, byte[]> sharded = shardPublisher;
        if (sharded == null) {
            return null;
        }
        List<String> to = shardNames.published(channel);
        CompletableFuture<?>[] replies = new CompletableFuture<?>[to.size()];
        for (int i = 0; i < replies.length; i++) {
            replies[i] = sharded.spublish(to.get(i), payload).toCompletableFuture();
        }
        return CompletableFuture.allOf(replies);
    }

    private void published(String channel, Throwable failure) {
        if (failure == null) {
            counters.published.increment();
        } else {
            counters.publishFailures.increment();
            if (!stopped) {
                publishFailures.log("A publish to Redis channel {} failed, other nodes miss it: {}",
                        options.channelPrefix() + channel, failure.toString());
            }
        }
    }

    /** Whether this broker keeps channel history in Redis: {@link RedisBrokerOptions#history}, on by default. */
    @Override
    public boolean keepsHistory() {
        return options.history();
    }

    /**
     * One script on the channel's keys ({@link HistoryKeys}; sharded: on the shard of the channel's name) numbers the
     * message, appends it to the channel's stream within {@code rule} and PUBLISHes (sharded: SPUBLISHes to the
     * channel's name) it with its position: all or nothing. {@code done} gets null once Redis ran it, or the failure
     * (Redis away, too slow, too many pending; counted in {@link Stats#publishFailures}); on a Lettuce thread, or at
     * once on the caller's when Lettuce refuses the command (disconnected). A script that timed out may still have run
     * late: then the nodes deliver it and it is kept although {@code done} had the timeout. Every
     * node subscribed to the channel, this one included, delivers it when Redis sends it, stamped with its position.
     * Sharded, the names of the wildcards that could match the channel are on other shards, beyond the script: they
     * get the message, with its position, by SPUBLISHes sent once the script has run (README, "History").
     */
    @Override
    public void publish(Message message, HistoryRule rule, Consumer<Throwable> done) {
        Objects.requireNonNull(done, "done");
        RedisHistory kept = redisHistory;
        if (kept == null || hub == null || stopped) {
            done.accept(new IllegalStateException(kept == null && hub != null ? "history is off: "
                    + "RedisBrokerOptions.history" : "the broker is not running"));
            return;
        }
        ChannelId channel = message.getChannelId();
        byte[] json = hub.codec().encode(List.of(message));
        long number;
        CompletableFuture<History.Position> written;
        try {
            synchronized (publishOrder) {
                number = ++lastNumber;
                written = kept.publish(channel, rule, nodeId + " " + number, json);
            }
        } catch (RuntimeException x) { // Lettuce refuses a command at once when it cannot queue it
            historyPublished(channel, x, done);
            return;
        }
        written.whenComplete((position, failure) -> {
            historyPublished(channel, failure, done);
            if (failure == null && options.sharded()) {
                toWildcardNames(channel, Envelope.wrap(envelopePrefix, number, position.epoch(), position.offset(),
                        json));
            }
        });
    }

    private void historyPublished(ChannelId channel, Throwable failure, Consumer<Throwable> done) {
        Throwable cause = failure == null ? null : RedisHistory.cause(failure);
        if (cause == null) {
            counters.published.increment();
        } else {
            counters.publishFailures.increment();
            if (!stopped) {
                historyFailures.log("A publish to the history of {} in Redis failed, no node has it: {}", channel,
                        cause.toString());
            }
        }
        call(done, cause);
    }

    /**
     * Sharded: SPUBLISH a publish the script has numbered, kept and published on the channel's own name to the names
     * of the wildcards that could match it, on their shards. A failure here is counted in {@link Stats#publishFailures}
     * (the nodes listening there miss it live; it is in the history).
     */
    private void toWildcardNames(ChannelId channel, byte[] payload) {
        RedisAdvancedClusterAsyncCommands<String, byte[]> sharded = shardPublisher;
        List<String> to = shardNames.published(channel);
        if (sharded == null || to.size() < 2) {
            return;
        }
        CompletableFuture<?>[] replies = new CompletableFuture<?>[to.size() - 1];
        try {
            for (int i = 1; i < to.size(); i++) {
                replies[i - 1] = sharded.spublish(to.get(i), payload).toCompletableFuture();
            }
        } catch (RuntimeException x) {
            published(channel.id(), x);
            return;
        }
        CompletableFuture.allOf(replies).whenComplete((all, failure) -> {
            if (failure != null) {
                published(channel.id(), failure);
            }
        });
    }

    /**
     * One script on the channel's keys: creates its epoch if it has none (a new one, which says that its history was
     * lost or never was), reads its position and, after {@code after}, at most {@code max} entries (what Redis sends
     * back is bounded by that); complete only if the epoch is {@code after}'s and every publication after it is still
     * kept (none trimmed by size or bytes, none older than the ttl). {@code done} gets the page or the failure (counted
     * in {@link Stats#historyReadFailures}), on a Lettuce thread (or the caller's, when Lettuce refuses the command).
     */
    @Override
    public void history(ChannelId channel, HistoryRule rule, History.Position after, int max,
            BiConsumer<History.Page, Throwable> done) {
        Objects.requireNonNull(done, "done");
        RedisHistory kept = redisHistory;
        Hub node = hub;
        if (kept == null || node == null || stopped) {
            done.accept(null, new IllegalStateException(kept == null && node != null ? "history is off: "
                    + "RedisBrokerOptions.history" : "the broker is not running"));
            return;
        }
        Subscriptions to = subscriptions;
        // After this node's subscriptions are confirmed (see Subscriptions.settled); not longer than a command may take.
        CompletableFuture<Void> ready = to == null ? CompletableFuture.completedFuture(null)
                : to.settled().completeOnTimeout(null, options.commandTimeout().toMillis(), TimeUnit.MILLISECONDS);
        CompletableFuture<History.Page> read = ready.thenCompose(confirmed -> {
            try {
                return kept.read(channel, rule, after, max, node.codec());
            } catch (RuntimeException x) {
                return CompletableFuture.failedFuture(x);
            }
        });
        read.whenComplete((page, failure) -> {
            Throwable cause = failure == null ? null : RedisHistory.cause(failure);
            if (cause == null) {
                counters.historyReads.increment();
            } else {
                counters.historyReadFailures.increment();
                if (!stopped) {
                    historyFailures.log("A read of the history of {} in Redis failed: {}", channel, cause.toString());
                }
            }
            try {
                done.accept(page, cause);
            } catch (RuntimeException x) {
                callbackFailures.log("A history read's callback threw: {}", x.toString());
            }
        });
    }

    private void call(Consumer<Throwable> done, Throwable failure) {
        try {
            done.accept(failure);
        } catch (RuntimeException x) {
            callbackFailures.log("A history publish's callback threw: {}", x.toString());
        }
    }

    @Override
    public void subscribe(ChannelId channel) {
        Subscriptions to = subscriptions;
        if (to != null && !stopped) {
            to.add(channel);
        }
    }

    @Override
    public void unsubscribe(ChannelId channel) {
        Subscriptions to = subscriptions;
        if (to != null && !stopped) {
            to.remove(channel);
        }
        ChannelOrder order = channelOrder;
        if (order != null) {
            order.forget(channel);
        }
    }

    /** Closes both connections and releases Lettuce's threads, waiting for them at most {@link #STOP_WAIT}. */
    @Override
    public void stop() {
        stopped = true;
        Subscriptions subscribed = subscriptions;
        if (subscribed != null) {
            subscribed.close();
        }
        ClientResources threads = resources;
        CompletableFuture<Void> stopped = CompletableFuture.allOf(shutdown(publishClient, publishConnection),
                shutdown(pubSubClient, pubSubConnection)).handle((done, failure) -> null);
        if (threads != null) {
            stopped = stopped.thenCompose(done -> {
                CompletableFuture<Void> gone = new CompletableFuture<>();
                threads.shutdown(QUIET_BEFORE_STOP.toMillis(), 2000, TimeUnit.MILLISECONDS)
                        .addListener(future -> gone.complete(null));
                return gone;
            });
        }
        // Waits for Lettuce's threads: in a web application they must be gone before its class loader closes (they
        // would fail on classes loaded late, with a stack trace per thread).
        try {
            stopped.get(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        } catch (Exception x) {
            LOG.warn("Redis clients not stopped within {} ms; leaving them to stop by themselves", STOP_WAIT.toMillis());
        }
    }

    /**
     * Closes {@code connection}, then the rest of {@code client}: a cluster connection closes its shards' connections
     * itself, which the client would otherwise close a second time (and Lettuce warn of it, once per connection).
     */
    private static CompletableFuture<Void> shutdown(AbstractRedisClient client, StatefulConnection<?, ?> connection) {
        if (client == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> closed = connection == null ? CompletableFuture.completedFuture(null)
                : connection.closeAsync();
        return closed.handle((done, failure) -> null)
                .thenCompose(done -> client.shutdownAsync(0, 2, TimeUnit.SECONDS));
    }

    /** This node's id in the cluster: the header of every message it publishes. Random per broker. */
    public String nodeId() {
        return nodeId;
    }

    /** The counts so far. */
    public Stats stats() {
        Subscriptions subscribed = subscriptions;
        Link publishing = publishLink;
        Link listening = pubSubLink;
        return new Stats(counters.published.sum(), counters.publishFailures.sum(), counters.received.sum(),
                counters.droppedOwn.sum(), counters.copies.sum(), counters.unwanted.sum(), counters.unreadable.sum(),
                counters.reconnects.sum(), counters.subscribeFailures.sum(),
                subscribed == null ? 0 : subscribed.channels(),
                subscribed == null ? 0 : subscribed.patterns(),
                publishing != null && publishing.up() && listening != null && listening.up(),
                counters.historyReads.sum(), counters.historyReadFailures.sum(), counters.historyGaps.sum());
    }

    /**
     * A broker's counts since it started.
     *
     * @param published messages Redis took from this node (sharded: every shard it went to took it), those on
     *     channels with history included (once the script ran)
     * @param publishFailures messages this node could not hand to Redis (away, too slow, too many pending): the other
     *     nodes' subscribers missed them (sharded: those listening through a shard that did not take it); this node's
     *     own got them. On a channel with history: the script failed and no node got it (its {@code done} had the
     *     failure); or, sharded, a wildcard name's shard did not take it after the script ran
     * @param received messages from Redis delivered to this node's subscribers: other nodes' publishes, and this
     *     node's own on channels with history
     * @param droppedOwn this node's own messages that Redis sent back and were dropped
     * @param copies further copies of a message delivered already (Redis sends one per matching subscription)
     * @param unwanted messages Redis sent for a channel no local session wants (a Redis pattern also matches
     *     channels deeper than a Bayeux {@code /a/*} does)
     * @param unreadable messages on this cluster's channels that no Weft node sent (no header, not JSON)
     * @param reconnects how often a connection to Redis was lost and made again
     * @param subscribeFailures subscribe and unsubscribe commands Redis refused or lost (sharded: a refused SSUBSCRIBE
     *     is sent again until a shard takes it; plain: the connection's return subscribes to everything again)
     * @param channels Redis channels (sharded: shard channels) this node subscribes to now
     * @param patterns Redis patterns this node subscribes to now (none when sharded)
     * @param connected whether all its connections are up (sharded: to every shard)
     * @param historyReads reads of channel history Redis answered (complete or not)
     * @param historyReadFailures reads of channel history that failed (Redis away, too slow, too many pending)
     * @param historyGaps sharded: gaps in a history channel's offsets this node gave up waiting for (a publication
     *     heard only through a wildcard's name that did not come within {@link ChannelOrder#WAIT_MILLIS}); its
     *     subscribers missed it live, and it is in the history
     */
    public record Stats(long published, long publishFailures, long received, long droppedOwn, long copies,
            long unwanted, long unreadable, long reconnects, long subscribeFailures, int channels, int patterns,
            boolean connected, long historyReads, long historyReadFailures, long historyGaps) {
    }

    private static String newNodeId() {
        byte[] random = new byte[8];
        new SecureRandom().nextBytes(random);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    @Override
    public String toString() {
        return "RedisBroker[" + nodeId + " " + options.uri().replaceAll("//[^@/]*@", "//***@") + "]";
    }
}
