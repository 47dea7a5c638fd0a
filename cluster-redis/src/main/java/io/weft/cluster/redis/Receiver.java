package io.weft.cluster.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.MessageDecodeException;
import io.weft.server.spi.Broker;
import io.weft.server.spi.QuietLog;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What Redis sends the pub/sub connection, handed to the engine's fan-out: a copy is dropped when no local session
 * wants its channel (a Redis glob crossed a {@code /}), when it is a copy of a publish delivered already (one copy
 * comes per matching subscription), or when this node published it; the rest is decoded and delivered once.
 *
 * <p>Lettuce calls it on the connection's event-loop thread, one message at a time; the engine's fan-out runs there.
 */
final class Receiver extends RedisPubSubAdapter<String, byte[]> {
    /** The most publishing nodes remembered; a cluster restarting nodes all day stays far below it. */
    private static final int MAX_ORIGINS = 4096;
    private static final QuietLog UNREADABLE = new QuietLog(Receiver.class, "unreadable messages from Redis");

    private final String nodeId;
    private final RedisNames names;
    private final Subscriptions subscriptions;
    private final Broker.Hub hub;
    private final Counters counters;
    /** The number of the last publish delivered from each node. Only the connection's thread uses it. */
    private final Map<String, Long> lastFrom = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > MAX_ORIGINS;
        }
    };

    Receiver(String nodeId, RedisNames names, Subscriptions subscriptions, Broker.Hub hub, Counters counters) {
        this.nodeId = nodeId;
        this.names = names;
        this.subscriptions = subscriptions;
        this.hub = hub;
        this.counters = counters;
    }

    @Override
    public void message(String channel, byte[] payload) {
        received(channel, payload);
    }

    @Override
    public void message(String pattern, String channel, byte[] payload) {
        received(channel, payload);
    }

    private void received(String redisChannel, byte[] payload) {
        ChannelId channel = names.bayeux(redisChannel);
        if (channel == null || !subscriptions.wants(channel)) {
            counters.unwanted.increment();
            return;
        }
        Envelope envelope = Envelope.read(payload);
        if (envelope == null) {
            unreadable(redisChannel, "no Weft header");
            return;
        }
        if (!first(envelope)) {
            counters.copies.increment();
            return;
        }
        if (envelope.origin().equals(nodeId)) {
            counters.droppedOwn.increment();
            return;
        }
        try {
            for (Message message : hub.codec().decode(payload, envelope.jsonOffset(),
                    payload.length - envelope.jsonOffset())) {
                hub.deliver(message);
            }
            counters.received.increment();
        } catch (MessageDecodeException x) {
            unreadable(redisChannel, x.getMessage());
        }
    }

    /** Whether {@code envelope} is the first copy of its publish to arrive here. */
    private boolean first(Envelope envelope) {
        synchronized (lastFrom) { // the connection's thread changes after a reconnect: publish the map to the next
            Long last = lastFrom.get(envelope.origin());
            if (last != null && envelope.number() <= last) {
                return false;
            }
            lastFrom.put(envelope.origin(), envelope.number());
            return true;
        }
    }

    private void unreadable(String redisChannel, String why) {
        counters.unreadable.increment();
        UNREADABLE.log("Dropped a message on Redis channel {} that no Weft node could have sent: {}", redisChannel, why);
    }
}
