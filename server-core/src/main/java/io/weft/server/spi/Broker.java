package io.weft.server.spi;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Codec;
import io.weft.bayeux.Message;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.HistoryRule;
import io.weft.server.internal.Bootstrap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Moves broadcast messages between the nodes of a cluster, and nothing else: each node fans out to its own sessions
 * itself. A message published on a node (a broadcast channel, past its channel listeners, frozen) is delivered there
 * to the local subscribers by the engine and handed to {@link #publish} for the other nodes; what another node
 * published arrives through {@link Hub#deliver}, which fans it out to this node's subscribers the same way. Service
 * channels, {@code /meta/*} and {@code ServerSession.deliver} stay on their node.
 *
 * <p>A node asks only for what its sessions need: the engine calls {@link #subscribe} when a channel or wildcard
 * pattern ({@code /a/b}, {@code /a/*}, {@code /a/**}) gets its first local subscriber and {@link #unsubscribe} when
 * its last one leaves, in that order per channel. A broker hands {@link Hub#deliver} each publish of another node
 * once, even where it matches several of this node's subscriptions (Redis sends a copy per matching subscription),
 * never this node's own publishes (its local subscribers have them already), and in each publishing node's order.
 *
 * <p>Every method is called on the engine's threads and must not block: queue the work, or hand it to an
 * asynchronous client.
 *
 * <pre>
 * Broker.install(bayeux, RedisBroker.create(uri));   // cluster-redis; before the server takes clients
 * </pre>
 */
public interface Broker {
    /**
     * Makes {@code broker} the cluster broker of {@code server}: {@link #start} is called now, {@link #stop} when the
     * server closes.
     *
     * @throws IllegalStateException if the server has sessions already, or a broker
     */
    static void install(BayeuxServer server, Broker broker) {
        Bootstrap.install(server, broker);
    }

    /** Called once, at {@link #install}: {@code hub} is this node's side. */
    void start(Hub hub);

    /**
     * A message published on this node, for the other nodes: frozen; {@code hub.codec().encode(List.of(message))}
     * gives its JSON, encoded once however many nodes and sessions receive it.
     */
    void publish(Message message);

    /** The first local subscriber of {@code channel} (a channel or a wildcard pattern) appeared. */
    void subscribe(ChannelId channel);

    /** The last local subscriber of {@code channel} left. */
    void unsubscribe(ChannelId channel);

    /** The server is closing. */
    void stop();

    /**
     * Whether this broker keeps the history of channels with a {@link HistoryRule} for the whole cluster, so that any
     * node serves any channel's history; then the engine publishes those channels through
     * {@link #publish(Message, HistoryRule, Consumer)} and reads them through {@link #history}, and keeps none of its
     * own. A broker that does not (the default) leaves history to each node's memory, where it does not outlive the
     * node.
     */
    default boolean keepsHistory() {
        return false;
    }

    /**
     * A message published on this node on a channel with history (frozen, without a position): the broker gives it
     * the channel's next offset, keeps it (within {@code rule}'s size, bytes and time) and publishes it, all three
     * at once (never one without the others), then calls {@code done} with null, or with the failure if it could do
     * none of them. Every node, this one included, receives it through {@link Hub#deliver} carrying its position in
     * {@code ext.history} ({@link History.Position#toMap}), in offset order per channel; this node delivers it to its
     * own subscribers only then, so that all nodes deliver a channel in one order.
     */
    default void publish(Message message, HistoryRule rule, Consumer<Throwable> done) {
        throw new UnsupportedOperationException("this broker keeps no history");
    }

    /**
     * Reads the history of {@code channel} (covered by {@code rule}) after {@code after}, and its position now; the
     * channel's epoch is created if it has none yet, so that the position given is one a later read recovers from.
     * With {@code after} null: the position only (no messages, complete). Otherwise complete with the publications
     * after it, in order, when its epoch is the channel's and none after it was trimmed or expired and there are at
     * most {@code max}; else not complete and no messages. {@code done} gets the page, or a failure.
     */
    default void history(ChannelId channel, HistoryRule rule, History.Position after, int max,
            BiConsumer<History.Page, Throwable> done) {
        throw new UnsupportedOperationException("this broker keeps no history");
    }

    /** This node, as its broker sees it. */
    interface Hub {
        /**
         * A message another node published: delivered to this node's subscribers of its channel and of the wildcard
         * patterns that match it (each session once), by the engine's own fan-out; not published again. A message
         * that is not for a broadcast channel is ignored. Any thread.
         */
        void deliver(Message message);

        /** The codec to encode published messages with and decode what other nodes sent. */
        Codec codec();
    }
}
