package io.weft.server.internal.delivery;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Codec;
import io.weft.bayeux.Message;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.HistoryRule;
import io.weft.server.internal.channel.ChannelTree;
import io.weft.server.internal.history.ClusterHistory;
import io.weft.server.internal.history.Histories;
import io.weft.server.internal.util.Guard;
import io.weft.server.spi.History;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import io.weft.server.spi.Broker;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's side of a cluster {@link Broker}, if one is installed: hands it what is published here, tells it which
 * channels this node's sessions need (counting the local subscribers of each channel and pattern, so that it hears
 * of the first and the last only), and fans out what other nodes publish through {@link LocalFanOut}, as a
 * publish from server code. Without a broker, every call returns at once.
 */
public final class Relay implements Broker.Hub, ClusterHistory {
    private final LocalFanOut fanOut;
    private final Codec codec;
    private final Guard guard;
    /** Local subscribers by broadcast channel or pattern, while a broker is installed. */
    private final ConcurrentHashMap<ChannelId, Integer> interest = new ConcurrentHashMap<>();
    private volatile Broker broker;
    private volatile Histories histories;
    private volatile ChannelTree tree;

    public Relay(LocalFanOut fanOut, Codec codec, Guard guard) {
        this.fanOut = fanOut;
        this.codec = codec;
        this.guard = guard;
    }

    /** Where what other nodes publish on channels with history is kept, when the broker keeps none. */
    public void keepIn(Histories histories, ChannelTree tree) {
        this.tree = tree;
        this.histories = histories;
    }

    /** Installs {@code broker} (the caller checked that there are no sessions yet) and starts it. */
    public synchronized void install(Broker broker) {
        if (this.broker != null) {
            throw new IllegalStateException("a broker is installed already: " + this.broker);
        }
        broker.start(this);
        this.broker = broker;
    }

    /** A broadcast published here, past its listeners and frozen. */
    void published(MessageImpl broadcast) {
        Broker to = broker;
        if (to != null) {
            guard.run("broker publish", () -> to.publish(broadcast));
        }
    }

    @Override
    public boolean keepsHistory() {
        Broker to = broker;
        return to != null && to.keepsHistory();
    }

    @Override
    public void publishKept(MessageImpl broadcast, HistoryRule rule, Consumer<Throwable> done) {
        try {
            broker.publish(broadcast, rule, done);
        } catch (Throwable x) {
            done.accept(x);
        }
    }

    @Override
    public void readKept(ChannelId channel, HistoryRule rule, History.Position after, int max,
            BiConsumer<History.Page, Throwable> done) {
        try {
            broker.history(channel, rule, after, max, done);
        } catch (Throwable x) {
            done.accept(null, x);
        }
    }

    /** A session subscribed to {@code channel}: the broker hears of the first. */
    public void subscribed(ChannelId channel) {
        Broker to = broker;
        if (to != null && crossesNodes(channel)) {
            // compute() orders the broker's subscribe and unsubscribe calls of one channel as the counts change.
            interest.compute(channel, (id, count) -> {
                if (count == null) {
                    guard.run("broker subscribe", () -> to.subscribe(id));
                    return 1;
                }
                return count + 1;
            });
        }
    }

    /** A session left {@code channel} (unsubscribed, or ended): the broker hears of the last. */
    public void unsubscribed(ChannelId channel) {
        Broker to = broker;
        if (to != null && crossesNodes(channel)) {
            interest.computeIfPresent(channel, (id, count) -> {
                if (count == 1) {
                    guard.run("broker unsubscribe", () -> to.unsubscribe(id));
                    return null;
                }
                return count - 1;
            });
        }
    }

    /** Broadcast channels and patterns; {@code /meta/*} and {@code /service/*} stay on their node. */
    private static boolean crossesNodes(ChannelId channel) {
        return !channel.isMeta() && !channel.isService();
    }

    @Override
    public void deliver(Message message) {
        ChannelId channel;
        try {
            channel = ChannelId.of(message.getChannel());
        } catch (RuntimeException notAChannel) {
            return;
        }
        if (!channel.isBroadcast() || channel.isWild()) {
            return;
        }
        Wakes wakes = new Wakes();
        MessageImpl broadcast = Publisher.broadcastCopy(message);
        History.Position position = History.Position.of(message);
        Histories kept = histories;
        HistoryRule rule = position != null || kept == null ? null : kept.ruleFor(channel, tree.get(channel));
        if (position != null) {
            // Kept by a history broker: it carries its position to the subscribers of every node, this one's too.
            fanOut.publish(Histories.stamp(broadcast, position), null, wakes);
        } else if (rule != null && !keepsHistory()) {
            // Each node keeps what it receives in its own memory, in its own epoch.
            kept.publish(broadcast, rule, null, stamped -> fanOut.publish(stamped, null, wakes), error -> { });
        } else {
            fanOut.publish(broadcast, null, wakes);
        }
        wakes.wakeAll();
    }

    @Override
    public Codec codec() {
        return codec;
    }

    /** The server is closing. */
    public void stop() {
        Broker to = broker;
        if (to != null) {
            guard.run("broker stop", to::stop);
        }
    }
}
