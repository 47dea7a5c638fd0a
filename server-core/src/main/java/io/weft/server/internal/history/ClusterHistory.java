package io.weft.server.internal.history;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.api.HistoryRule;
import io.weft.server.spi.History;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/** The cluster's side of history, if its broker keeps it: what {@link Histories} needs of the broker's relay. */
public interface ClusterHistory {
    /** Whether an installed broker keeps channel history for the cluster. */
    boolean keepsHistory();

    /** Hands a broadcast on a channel with history to the broker, to stamp, keep and publish to every node. */
    void publishKept(MessageImpl broadcast, HistoryRule rule, Consumer<Throwable> done);

    /** Reads a channel's history from the broker. */
    void readKept(ChannelId channel, HistoryRule rule, History.Position after, int max,
            BiConsumer<History.Page, Throwable> done);
}
