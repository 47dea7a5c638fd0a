package io.weft.server.internal.session;

import io.weft.server.api.Message;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The acknowledgement extension's memory for one session: each {@code /meta/connect} reply is a numbered batch of
 * the messages it carried; a client's next {@code /meta/connect} names the last batch it received, and any later
 * batch (its reply was lost) is handed back to be sent again, in order, before anything newer.
 *
 * <p>At most {@code maxBatches} unacknowledged batches are kept; past that the oldest is forgotten and logged, so a
 * client that never acknowledges cannot grow the server's memory without bound.
 */
public final class AckTracker {
    private static final Logger LOG = LoggerFactory.getLogger(AckTracker.class);

    private final int maxBatches;
    private final ArrayDeque<Batch> unacknowledged = new ArrayDeque<>();
    private long nextBatch = 1;

    private record Batch(long id, List<Message> messages) {
    }

    AckTracker(int maxBatches) {
        this.maxBatches = maxBatches;
    }

    /**
     * Numbers a batch about to be sent with a {@code /meta/connect} reply (ids start at 1: the official clients treat
     * 0 as none) and remembers its messages until acknowledged.
     */
    public synchronized long record(List<Message> messages) {
        long id = nextBatch++;
        if (!messages.isEmpty()) {
            unacknowledged.addLast(new Batch(id, List.copyOf(messages)));
            if (unacknowledged.size() > maxBatches) {
                Batch forgotten = unacknowledged.pollFirst();
                LOG.info("forgetting unacknowledged batch {} ({} messages): more than {} batches unacknowledged",
                        forgotten.id(), forgotten.messages().size(), maxBatches);
            }
        }
        return id;
    }

    /**
     * The client has received every batch up to {@code lastReceived}: those are forgotten. Batches after it were
     * lost on the way; their messages are returned, oldest first, to be queued again (and forgotten here, since they
     * will be numbered again when re-sent).
     */
    public synchronized List<Message> acknowledge(long lastReceived) {
        while (!unacknowledged.isEmpty() && unacknowledged.peekFirst().id() <= lastReceived) {
            unacknowledged.pollFirst();
        }
        if (unacknowledged.isEmpty()) {
            return List.of();
        }
        List<Message> lost = new ArrayList<>();
        for (Batch batch : unacknowledged) {
            lost.addAll(batch.messages());
        }
        unacknowledged.clear();
        return lost;
    }

    /** How many batches wait for an acknowledgement. */
    public synchronized int pending() {
        return unacknowledged.size();
    }
}
