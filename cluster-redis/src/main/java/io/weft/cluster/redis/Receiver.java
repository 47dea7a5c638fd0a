package io.weft.cluster.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.MessageDecodeException;
import io.weft.server.spi.Broker;
import io.weft.server.spi.History;
import io.weft.server.spi.QuietLog;

/**
 * What Redis sends the pub/sub connection, handed to the engine's fan-out: a copy is dropped when no local session
 * wants its channel (a Redis glob crossed a {@code /}), when it is a copy of a publish delivered already (one copy
 * comes per matching subscription), or when this node published it (unless it carries a position in a channel's
 * history: those every node delivers, this one included); the rest is decoded and delivered once, a position stamped
 * into {@code ext.history} (sharded: put back in offset order per channel first, {@link ChannelOrder}).
 *
 * <p>Lettuce calls it on the connection's event-loop thread, one message at a time; the engine's fan-out runs there.
 * With sharded pub/sub there is a connection per shard, so messages of different shards come on different threads at
 * once; shard channels are exact names, so nothing comes that no local session wants (bar the moment after an
 * unsubscription, when the engine's fan-out finds no one).
 */
final class Receiver extends RedisPubSubAdapter<String, byte[]> {
    private static final QuietLog UNREADABLE = new QuietLog(Receiver.class, "unreadable messages from Redis");
    private static final QuietLog DROPPED = new QuietLog(Receiver.class, "shard channels Redis dropped");

    private final String nodeId;
    private final RedisNames names;
    private final Subscriptions subscriptions;
    private final Broker.Hub hub;
    private final Counters counters;
    private final boolean sharded;
    private final Seen seen = new Seen();
    /** Sharded: history publications back in offset order per channel; null with plain pub/sub (no need). */
    private final ChannelOrder order;

    Receiver(String nodeId, RedisNames names, Subscriptions subscriptions, Broker.Hub hub, Counters counters,
            ChannelOrder order) {
        this.nodeId = nodeId;
        this.names = names;
        this.subscriptions = subscriptions;
        this.hub = hub;
        this.counters = counters;
        this.sharded = order != null;
        this.order = order;
    }

    @Override
    public void message(String channel, byte[] payload) {
        received(channel, payload);
    }

    @Override
    public void message(String pattern, String channel, byte[] payload) {
        received(channel, payload);
    }

    @Override
    public void smessage(String shardChannel, byte[] payload) {
        received(shardChannel, payload);
    }

    /**
     * Redis dropped a shard channel: this node's own SUNSUBSCRIBE, or the shard gave up the channel's slot (moved to
     * another shard, or the shard failed over). If a local session still wants it, SSUBSCRIBE it again, which Lettuce
     * routes to the slot's owner now (following the MOVED reply if its view of the cluster is behind).
     */
    @Override
    public void sunsubscribed(String shardChannel, long count) {
        if (sharded && subscriptions.subscribeAgain(shardChannel)) {
            DROPPED.log("Redis dropped shard channel {} of node {} (its slot moved?): subscribing again", shardChannel,
                    nodeId);
        }
    }

    private void received(String redisChannel, byte[] payload) {
        if (!sharded) {
            ChannelId channel = names.bayeux(redisChannel);
            if (channel == null || !subscriptions.wants(channel)) {
                counters.unwanted.increment();
                return;
            }
        }
        Envelope envelope = Envelope.read(payload);
        if (envelope == null) {
            unreadable(redisChannel, "no Weft header");
            return;
        }
        Seen.Window from = seen.of(envelope.origin());
        synchronized (from) { // decided and delivered at once: see Seen
            if (!from.first(envelope.number())) {
                counters.copies.increment();
                return;
            }
            History.Position position = envelope.epoch() == null ? null
                    : new History.Position(envelope.epoch(), envelope.offset());
            if (position == null && envelope.origin().equals(nodeId)) {
                counters.droppedOwn.increment();
                return;
            }
            try {
                for (Message.Mutable message : hub.codec().decode(payload, envelope.jsonOffset(),
                        payload.length - envelope.jsonOffset())) {
                    if (position == null) {
                        hub.deliver(message);
                    } else {
                        message.getExt(true).put(History.EXT, position.toMap());
                        if (order == null) {
                            hub.deliver(message);
                        } else {
                            order.accept(message.getChannel(), position, message);
                        }
                    }
                }
                counters.received.increment();
            } catch (MessageDecodeException x) {
                unreadable(redisChannel, x.getMessage());
            }
        }
    }

    private void unreadable(String redisChannel, String why) {
        counters.unreadable.increment();
        UNREADABLE.log("Dropped a message on Redis channel {} that no Weft node could have sent: {}", redisChannel, why);
    }
}
