package io.weft.cluster.redis;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Codec;
import io.weft.bayeux.Message;
import io.weft.server.api.HistoryRule;
import io.weft.server.spi.Broker;
import io.weft.server.spi.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A node of a history test without a server: a {@link RedisBroker} started on a hub of the test's own, which keeps what
 * Redis delivers to it, in order. Publishes and reads go straight to the broker, as the engine would send them.
 */
final class HistoryNode implements Broker.Hub, AutoCloseable {
    static final Duration WITHIN = Duration.ofSeconds(10);

    final RedisBroker broker;
    private final Codec codec = Codec.json();
    /** Guarded by itself. */
    private final List<Message> delivered = new ArrayList<>();

    HistoryNode(RedisBrokerOptions options) {
        broker = RedisBroker.create(options);
        broker.start(this);
    }

    /** A node on the plain Redis at {@code uri}, or on the Redis Cluster of these seeds if {@code sharded}. */
    static HistoryNode on(String uri, boolean sharded) {
        return new HistoryNode(RedisBrokerOptions.builder(uri).sharded(sharded)
                .maxReconnectDelay(Duration.ofMillis(100)).commandTimeout(Duration.ofSeconds(2)).build());
    }

    @Override
    public void deliver(Message message) {
        synchronized (delivered) {
            delivered.add(message);
        }
    }

    @Override
    public Codec codec() {
        return codec;
    }

    /** What Redis delivered to this node on {@code channel}, in order. */
    List<Message> delivered(String channel) {
        List<Message> on = new ArrayList<>();
        synchronized (delivered) {
            for (Message message : delivered) {
                if (channel.equals(message.getChannel())) {
                    on.add(message);
                }
            }
        }
        return on;
    }

    /** The positions of what Redis delivered to this node on {@code channel}, in order. */
    List<History.Position> positions(String channel) {
        return delivered(channel).stream().map(History.Position::of).toList();
    }

    void subscribe(String channel) {
        broker.subscribe(ChannelId.of(channel));
    }

    /** Publishes {@code data} on {@code channel} with history: completes when the broker calls back. */
    CompletableFuture<Void> publish(String channel, Object data, HistoryRule rule) {
        Message.Mutable message = Message.Mutable.create().setChannel(channel).setData(data);
        CompletableFuture<Void> done = new CompletableFuture<>();
        broker.publish(message, rule, failure -> {
            if (failure == null) {
                done.complete(null);
            } else {
                done.completeExceptionally(failure);
            }
        });
        return done;
    }

    /** As {@link #publish}, waiting for the broker's answer; throws what it failed with. */
    void published(String channel, Object data, HistoryRule rule) throws Exception {
        await(publish(channel, data, rule));
    }

    /** Reads {@code channel}'s history after {@code after}, as the engine would. */
    CompletableFuture<History.Page> read(String channel, HistoryRule rule, History.Position after, int max) {
        CompletableFuture<History.Page> page = new CompletableFuture<>();
        broker.history(ChannelId.of(channel), rule, after, max, (read, failure) -> {
            if (failure == null) {
                page.complete(read);
            } else {
                page.completeExceptionally(failure);
            }
        });
        return page;
    }

    /** As {@link #read}, waiting for the page; throws what the read failed with. */
    History.Page page(String channel, HistoryRule rule, History.Position after, int max) throws Exception {
        return await(read(channel, rule, after, max));
    }

    static <T> T await(CompletableFuture<T> future) throws Exception {
        try {
            return future.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException x) {
            throw x.getCause() instanceof Exception cause ? cause : x;
        } catch (TimeoutException x) {
            throw new AssertionError("no answer within " + WITHIN, x);
        }
    }

    @Override
    public void close() {
        broker.stop();
    }
}
