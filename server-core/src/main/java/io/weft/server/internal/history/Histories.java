package io.weft.server.internal.history;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.internal.JsonCodec;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.HistoryRule;
import io.weft.server.api.Limit;
import io.weft.server.api.Scheduler;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerStats;
import io.weft.server.internal.channel.ChannelNode;
import io.weft.server.internal.util.Refusals;
import io.weft.server.spi.History;
import io.weft.server.spi.QuietLog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The engine's channel history: which channels keep one, and where it lives: in the installed broker when it keeps
 * history for the cluster ({@code Broker.keepsHistory}), else in this node's memory ({@link MemoryHistory}). Counts
 * what recoveries found.
 */
public final class Histories {
    private final QuietLog failureLog = new QuietLog(Histories.class, "history publishes and reads that failed");

    private final ServerOptions options;
    private final Scheduler scheduler;
    private final Refusals refusals;
    private final ClusterHistory relay;
    private final MemoryHistory memory;
    private final LongAdder recovered = new LongAdder();
    private final LongAdder notRecovered = new LongAdder();
    private final LongAdder messagesRecovered = new LongAdder();
    private final LongAdder failures = new LongAdder();

    public Histories(ServerOptions options, Scheduler scheduler, Refusals refusals, ClusterHistory relay,
            JsonCodec codec) {
        this.options = options;
        this.scheduler = scheduler;
        this.refusals = refusals;
        this.relay = relay;
        this.memory = new MemoryHistory(options.maxHistoryChannels(), options.maxHistoryChannelsPerAddress(), codec);
    }

    /** The rule of a concrete broadcast channel ({@code exact} its node, if it has one); null if it keeps none. */
    public HistoryRule ruleFor(ChannelId channel, ChannelNode exact) {
        if (exact != null) {
            return exact.getHistory();
        }
        if (!channel.isBroadcast() || channel.isWild()) {
            return null;
        }
        for (HistoryRule rule : options.history()) {
            if (rule.covers(channel)) {
                return rule;
            }
        }
        return null;
    }

    /**
     * Publishes a broadcast (frozen, without a position) on a channel with history: stamped with its position and
     * kept, then handed to {@code fanOut} (here at once, under the stream's lock; with a history broker when it comes
     * back through {@code Hub.deliver}, on every node alike).
     *
     * @param address the publishing client's address key, or null for server code
     * @param done null once published, or the error: a history table's bound, or the cluster's history unavailable
     */
    public void publish(MessageImpl broadcast, HistoryRule rule, Object address, Consumer<MessageImpl> fanOut,
            Consumer<BayeuxError> done) {
        if (relay.keepsHistory()) {
            relay.publishKept(broadcast, rule, failure -> {
                if (failure == null) {
                    done.accept(null);
                } else {
                    failures.increment();
                    failureLog.log("a publish on {} could not be kept and published: {}", broadcast.getChannel(),
                            failure.toString());
                    done.accept(BayeuxError.HISTORY_UNAVAILABLE);
                }
            });
            return;
        }
        Limit refused = memory.publish(broadcast.getChannelId(), rule, broadcast, address, scheduler.now(), fanOut);
        done.accept(refused == null ? null : refuse(refused));
    }

    /**
     * Reads {@code channel}'s history after {@code after} (null: its position only), at most
     * {@code maxRecoveredMessages}.
     *
     * @param done the page, or null and the error (a bound, or the history unavailable)
     */
    public void read(ChannelId channel, HistoryRule rule, History.Position after, Object address,
            BiConsumer<History.Page, BayeuxError> done) {
        int max = options.maxRecoveredMessages();
        if (relay.keepsHistory()) {
            relay.readKept(channel, rule, after, max, (page, failure) -> {
                if (failure == null && page != null) {
                    done.accept(ownCopies(page), null);
                } else {
                    failures.increment();
                    failureLog.log("the history of {} could not be read: {}", channel, String.valueOf(failure));
                    done.accept(null, BayeuxError.HISTORY_UNAVAILABLE);
                }
            });
            return;
        }
        MemoryHistory.Read read = memory.read(channel, rule, after, max, address, scheduler.now());
        done.accept(read.page(), read.page() == null ? refuse(read.refused()) : null);
    }

    /**
     * A broker's page with each message rebuilt from what a delivered message may carry (its channel, data,
     * timestamp and position), frozen: what a store hands back is not trusted to be more.
     */
    private static History.Page ownCopies(History.Page page) {
        List<Message> copies = new ArrayList<>(page.messages().size());
        for (Message message : page.messages()) {
            History.Position position = History.Position.of(message);
            if (position == null) {
                return new History.Page(page.top(), List.of(), false);
            }
            MessageImpl copy = new MessageImpl();
            copy.setChannel(message.getChannel());
            if (message.getData() != null) {
                copy.setData(message.getData());
            }
            if (message.get(Message.TIMESTAMP) instanceof String timestamp) {
                copy.put(Message.TIMESTAMP, timestamp);
            }
            copy.getExt(true).put(History.EXT, position.toMap());
            copies.add(copy.freeze());
        }
        return new History.Page(page.top(), copies, page.complete());
    }

    /** Counts one channel's recovery: whether all was recovered, and how many messages it delivered. */
    public void recovery(boolean all, int messages) {
        (all ? recovered : notRecovered).increment();
        messagesRecovered.add(messages);
    }

    /** Expires what nothing used for its ttl (memory only: a broker's store expires its own). */
    public void sweep() {
        memory.sweep(scheduler.now());
    }

    public ServerStats.HistoryStats stats() {
        return new ServerStats.HistoryStats(memory.channels(), memory.messages(), memory.bytes(), recovered.sum(),
                notRecovered.sum(), messagesRecovered.sum(), failures.sum());
    }

    /** A copy of {@code broadcast} carrying {@code position} in {@code ext.history}, frozen. */
    public static MessageImpl stamp(MessageImpl broadcast, History.Position position) {
        MessageImpl stamped = broadcast.copy();
        stamped.getExt(true).put(History.EXT, position.toMap());
        return stamped.freeze();
    }

    private BayeuxError refuse(Limit limit) {
        refusals.count(limit);
        return limit.error();
    }
}
