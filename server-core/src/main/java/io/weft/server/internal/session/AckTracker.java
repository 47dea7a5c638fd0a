package io.weft.server.internal.session;

import io.weft.bayeux.Message;
import io.weft.server.api.Limit;
import io.weft.server.internal.util.Refusals;
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
 * <p>At most {@code maxMessages} unacknowledged messages are kept, whatever the number of batches they came in; past
 * that the oldest are forgotten and counted ({@link Limit#UNACKNOWLEDGED}), so a client that never acknowledges, or
 * always acknowledges 0, costs the server a bounded memory and a bounded replay.
 */
public final class AckTracker {
    private static final Logger LOG = LoggerFactory.getLogger(AckTracker.class);

    private final int maxMessages;
    private final Refusals refusals;
    private final ArrayDeque<Batch> unacknowledged = new ArrayDeque<>();
    private long nextBatch = 1;
    private int messages;
    private boolean warned;

    /** A numbered batch; {@code from} is how many of its oldest messages have been forgotten. */
    private static final class Batch {
        final long id;
        final List<Message> messages;
        int from;

        Batch(long id, List<Message> messages) {
            this.id = id;
            this.messages = messages;
        }

        int size() {
            return messages.size() - from;
        }
    }

    AckTracker(int maxMessages, Refusals refusals) {
        this.maxMessages = maxMessages;
        this.refusals = refusals;
    }

    /**
     * Numbers a batch about to be sent with a {@code /meta/connect} reply (ids start at 1: the official clients treat
     * 0 as none) and remembers its messages until acknowledged.
     */
    public synchronized long record(List<Message> batch) {
        long id = nextBatch++;
        if (!batch.isEmpty()) {
            unacknowledged.addLast(new Batch(id, List.copyOf(batch)));
            messages += batch.size();
            forgetPastLimit();
        }
        return id;
    }

    private void forgetPastLimit() {
        int excess = messages - maxMessages;
        if (excess <= 0) {
            return;
        }
        int forgotten = excess;
        while (excess > 0) {
            Batch oldest = unacknowledged.peekFirst();
            int drop = Math.min(excess, oldest.size());
            oldest.from += drop;
            excess -= drop;
            if (oldest.size() == 0) {
                unacknowledged.pollFirst();
            }
        }
        messages -= forgotten;
        refusals.count(Limit.UNACKNOWLEDGED, forgotten);
        if (!warned) {
            warned = true;
            LOG.info("forgetting unacknowledged messages: more than {} (maxUnacknowledged) wait for this client's "
                    + "acknowledgement; logged once per session", maxMessages);
        }
    }

    /**
     * The client has received every batch up to {@code lastReceived}: those are forgotten. Batches after it were
     * lost on the way; their messages are returned, oldest first, to be queued again (and forgotten here, since they
     * will be numbered again when re-sent).
     */
    public synchronized List<Message> acknowledge(long lastReceived) {
        while (!unacknowledged.isEmpty() && unacknowledged.peekFirst().id <= lastReceived) {
            messages -= unacknowledged.pollFirst().size();
        }
        if (unacknowledged.isEmpty()) {
            return List.of();
        }
        List<Message> lost = new ArrayList<>(messages);
        for (Batch batch : unacknowledged) {
            lost.addAll(batch.messages.subList(batch.from, batch.messages.size()));
        }
        unacknowledged.clear();
        messages = 0;
        return lost;
    }

    /** How many batches wait for an acknowledgement. */
    public synchronized int pending() {
        return unacknowledged.size();
    }

    /** How many messages wait for an acknowledgement. */
    public synchronized int pendingMessages() {
        return messages;
    }
}
