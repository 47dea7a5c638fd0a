package io.weft.cluster.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.server.spi.Broker;
import io.weft.server.spi.QuietLog;
import java.net.SocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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

    private final RedisBrokerOptions options;
    private final String nodeId = newNodeId();
    private final byte[] envelopePrefix = Envelope.prefix(nodeId);
    private final RedisNames names;
    private final Counters counters = new Counters();
    private final QuietLog publishFailures = new QuietLog(RedisBroker.class, "publishes to Redis that failed");
    /** Numbers this node's publishes in the order they are handed to the publish connection. */
    private final Object publishOrder = new Object();
    private long lastNumber;

    private volatile Hub hub;
    private volatile ClientResources resources;
    private volatile RedisClient publishClient;
    private volatile RedisClient pubSubClient;
    private volatile StatefulRedisConnection<String, byte[]> publishConnection;
    private volatile RedisAsyncCommands<String, byte[]> publisher;
    private volatile StatefulRedisPubSubConnection<String, byte[]> pubSubConnection;
    private volatile Subscriptions subscriptions;
    private volatile Link publishLink;
    private volatile Link pubSubLink;
    private volatile boolean stopped;

    private RedisBroker(RedisBrokerOptions options) {
        this.options = Objects.requireNonNull(options, "options");
        this.names = new RedisNames(options.channelPrefix());
    }

    /** A broker for the Redis at {@code uri} ({@code redis://host:port}), with the other options' defaults. */
    public static RedisBroker create(String uri) {
        return new RedisBroker(RedisBrokerOptions.of(uri));
    }

    public static RedisBroker create(RedisBrokerOptions options) {
        return new RedisBroker(options);
    }

    /**
     * Connects to Redis, waiting up to {@link RedisBrokerOptions#connectTimeout} for each of the two connections: a
     * node that cannot reach Redis when it starts fails to start, naming the address. Called by
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
        RedisURI uri = RedisURI.create(options.uri());
        uri.setTimeout(options.connectTimeout());
        resources = ClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(1)
                .reconnectDelay(() -> Delay.exponential(Duration.ofMillis(1), options.maxReconnectDelay(), 2,
                        TimeUnit.MILLISECONDS))
                .build();
        SocketOptions socket = SocketOptions.builder().connectTimeout(options.connectTimeout()).build();
        try {
            // Publishes fail at once while disconnected (counted), and are never sent twice after a reconnect.
            publishClient = RedisClient.create(resources, uri);
            publishClient.setOptions(ClientOptions.builder()
                    .socketOptions(socket)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .requestQueueSize(options.maxPendingPublishes())
                    .timeoutOptions(TimeoutOptions.enabled(options.commandTimeout()))
                    .build());
            publishLink = new Link("publish");
            publishClient.addListener(publishLink);
            publishConnection = publishClient.connect(CODEC);
            publisher = publishConnection.async();

            // (P)SUBSCRIBE while disconnected are queued and sent after Lettuce's own resubscription.
            pubSubClient = RedisClient.create(resources, uri);
            pubSubClient.setOptions(ClientOptions.builder()
                    .socketOptions(socket)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                    .build());
            pubSubLink = new Link("pub/sub");
            pubSubClient.addListener(pubSubLink);
            pubSubConnection = pubSubClient.connectPubSub(CODEC);
            subscriptions = new Subscriptions(names, pubSubConnection.async());
            pubSubConnection.addListener(new Receiver(nodeId, names, subscriptions, hub, counters));
        } catch (RuntimeException x) {
            stop();
            throw new IllegalStateException("cannot reach Redis at " + uri.getHost() + ":" + uri.getPort() + ": " + x,
                    x);
        }
        LOG.info("Weft node {} on Redis {}:{}, channels {}*", nodeId, uri.getHost(), uri.getPort(),
                options.channelPrefix());
    }

    @Override
    public void publish(Message message) {
        RedisAsyncCommands<String, byte[]> to = publisher;
        if (to == null || stopped) {
            return;
        }
        String channel = names.channel(message.getChannel());
        byte[] json = hub.codec().encode(List.of(message));
        RedisFuture<Long> reply;
        synchronized (publishOrder) {
            reply = to.publish(channel, Envelope.wrap(envelopePrefix, ++lastNumber, json));
        }
        reply.whenComplete((receivers, failure) -> published(channel, failure));
    }

    private void published(String channel, Throwable failure) {
        if (failure == null) {
            counters.published.increment();
        } else {
            counters.publishFailures.increment();
            if (!stopped) {
                publishFailures.log("A publish to Redis channel {} failed, other nodes miss it: {}", channel,
                        failure.toString());
            }
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
    }

    /** Closes both connections and releases Lettuce's threads, without waiting for them. */
    @Override
    public void stop() {
        stopped = true;
        RedisClient first = publishClient;
        RedisClient second = pubSubClient;
        ClientResources threads = resources;
        CompletableFuture<Void> clients = CompletableFuture.allOf(
                first == null ? CompletableFuture.completedFuture(null) : first.shutdownAsync(0, 2, TimeUnit.SECONDS),
                second == null ? CompletableFuture.completedFuture(null) : second.shutdownAsync(0, 2, TimeUnit.SECONDS));
        if (threads != null) {
            clients.whenComplete((done, failure) -> threads.shutdown(0, 2, TimeUnit.SECONDS));
        }
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
                counters.reconnects.sum(), subscribed == null ? 0 : subscribed.channels(),
                subscribed == null ? 0 : subscribed.patterns(),
                publishing != null && publishing.up() && listening != null && listening.up());
    }

    /**
     * A broker's counts since it started.
     *
     * @param published messages Redis took from this node
     * @param publishFailures messages this node could not hand to Redis (away, too slow, too many pending): the other
     *     nodes' subscribers missed them; this node's own got them
     * @param received messages from other nodes delivered to this node's subscribers
     * @param droppedOwn this node's own messages that Redis sent back and were dropped
     * @param copies further copies of a message delivered already (Redis sends one per matching subscription)
     * @param unwanted messages Redis sent for a channel no local session wants (a Redis pattern also matches
     *     channels deeper than a Bayeux {@code /a/*} does)
     * @param unreadable messages on this cluster's channels that no Weft node sent (no header, not JSON)
     * @param reconnects how often a connection to Redis was lost and made again
     * @param channels Redis channels this node subscribes to now
     * @param patterns Redis patterns this node subscribes to now
     * @param connected whether both connections are up
     */
    public record Stats(long published, long publishFailures, long received, long droppedOwn, long copies,
            long unwanted, long unreadable, long reconnects, int channels, int patterns, boolean connected) {
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

    /** One of the two connections, as its client reports it: the lines an operator sees when Redis comes and goes. */
    private final class Link implements RedisConnectionStateListener {
        private final String name;
        private int connects;
        private long lostAt;
        /** Failed publishes when this connection last came up: a publish may fail before its loss is reported. */
        private long failuresWhenUp;
        private volatile boolean up;

        Link(String name) {
            this.name = name;
        }

        boolean up() {
            return up;
        }

        @Override
        public synchronized void onRedisConnected(RedisChannelHandler<?, ?> connection,
                SocketAddress address) {
            up = true;
            long failures = counters.publishFailures.sum();
            long failedSince = failures - failuresWhenUp;
            failuresWhenUp = failures;
            if (++connects == 1) {
                return;
            }
            counters.reconnects.increment();
            long away = (System.nanoTime() - lostAt) / 1_000_000;
            Subscriptions subscribed = subscriptions;
            if (this == publishLink) {
                LOG.info("Redis publish connection of node {} is back ({}) after {} ms; {} publishes failed since it was "
                        + "last up", nodeId, address, away, failedSince);
            } else if (subscribed != null) {
                LOG.info("Redis pub/sub connection of node {} is back ({}) after {} ms; subscribing again to {} "
                        + "channels and {} patterns", nodeId, address, away, subscribed.channels(),
                        subscribed.patterns());
            }
        }

        @Override
        public synchronized void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            up = false;
            if (stopped) {
                return;
            }
            lostAt = System.nanoTime();
            LOG.info("Redis {} connection of node {} lost: local delivery goes on, cross-node delivery waits for "
                    + "Lettuce to reconnect", name, nodeId);
        }
    }
}
