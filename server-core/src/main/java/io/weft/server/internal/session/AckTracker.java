package io.weft.server.internal.session;

import io.weft.bayeux.Message;
import io.weft.server.api.Limit;
import io.weft.server.internal.util.Refusals;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The acknowledgement extension's memory for one session: each {@code /meta/connect} reply is a numbered batch of
 * the messages it carried; a client's next {@code /meta/connect} names the last batch it received, and any later
 * batch (its reply was lost) is handed back to be sent again, in order, before anything newer.
 *
 * <p>What it keeps is bounded in messages ({@code maxMessages}) and in bytes ({@code maxBytes}), whatever the number
 * of batches they came in; past either the oldest are forgotten and counted ({@link Limit#UNACKNOWLEDGED},
 * {@link Limit#UNACKNOWLEDGED_BYTES}). And what is sent again is paid for: the session starts with
 * {@code maxResendBytes} of credit, each byte sent again spends one and each byte the client acknowledges earns one
 * back (up to that). A client that keeps naming an old batch (an acknowledgement of 0 on every connect) gets its
 * backlog again until the credit runs out; then lost batches are forgotten and counted ({@link Limit#RESENDS}). So a
 * small request never makes the server send more than the client has acknowledged receiving, plus one allowance; a
 * client that loses a reply now and then, and acknowledges the rest, never runs short.
 */
public final class AckTracker {
    private static final Logger LOG = LoggerFactory.getLogger(AckTracker.class);

    private final int maxMessages;
    private final long maxBytes;
    private final long maxResendBytes;
    private final ToIntFunction<Message> sizer;
    private final Refusals refusals;
    private final ArrayDeque<Batch> unacknowledged = new ArrayDeque<>();
    private long nextBatch = 1;
    private int messages;
    private long bytes;
    /** The bytes this session may still be sent again before it acknowledges more. */
    private long resendCredit;
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

    AckTracker(int maxMessages, long maxBytes, long maxResendBytes, ToIntFunction<Message> sizer, Refusals refusals) {
        this.maxMessages = maxMessages;
        this.maxBytes = maxBytes;
        this.maxResendBytes = maxResendBytes;
        this.resendCredit = maxResendBytes;
        this.sizer = sizer;
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
            for (Message message : batch) {
                bytes += sizer.applyAsInt(message);
            }
            forgetPastLimit();
        }
        return id;
    }

    private void forgetPastLimit() {
        while (messages > maxMessages || bytes > maxBytes) {
            Limit limit = messages > maxMessages ? Limit.UNACKNOWLEDGED : Limit.UNACKNOWLEDGED_BYTES;
            Batch oldest = unacknowledged.peekFirst();
            Message forgotten = oldest.messages.get(oldest.from++);
            if (oldest.size() == 0) {
                unacknowledged.pollFirst();
            }
            messages--;
            bytes -= sizer.applyAsInt(forgotten);
            refusals.count(limit);
            warnOnce(limit);
        }
    }

    private void warnOnce(Limit limit) {
        if (!warned) {
            warned = true;
            LOG.info("forgetting unacknowledged messages past {}: this client does not acknowledge what it receives, "
                    + "or reports it lost again and again; logged once per session", limit.option());
        }
    }

    /**
     * The client has received every batch up to {@code lastReceived}: those are forgotten. Batches after it were
     * lost on the way; their messages are returned, oldest first, to be queued again (and forgotten here, since they
     * will be numbered again when re-sent), as far as the session's credit goes: past it they are forgotten and
     * counted.
     */
    public synchronized List<Message> acknowledge(long lastReceived) {
        while (!unacknowledged.isEmpty() && unacknowledged.peekFirst().id <= lastReceived) {
            Batch received = unacknowledged.pollFirst();
            messages -= received.size();
            long receivedBytes = 0;
            for (int i = received.from; i < received.messages.size(); i++) {
                receivedBytes += sizer.applyAsInt(received.messages.get(i));
            }
            bytes -= receivedBytes;
            resendCredit = Math.min(maxResendBytes, resendCredit + receivedBytes);
        }
        if (unacknowledged.isEmpty()) {
            return List.of();
        }
        List<Message> lost = new ArrayList<>(messages);
        int forgotten = 0;
        for (Batch batch : unacknowledged) {
            for (int i = batch.from; i < batch.messages.size(); i++) {
                Message message = batch.messages.get(i);
                int size = sizer.applyAsInt(message);
                if (forgotten == 0 && size <= resendCredit) {
                    resendCredit -= size;
                    lost.add(message);
                } else {
                    // Out of credit: this one and every later one, so what is sent again keeps its order.
                    forgotten++;
                }
            }
        }
        if (forgotten > 0) {
            refusals.count(Limit.RESENDS, forgotten);
            warnOnce(Limit.RESENDS);
        }
        unacknowledged.clear();
        messages = 0;
        bytes = 0;
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

    /** How many bytes of messages wait for an acknowledgement. */
    public synchronized long pendingBytes() {
        return bytes;
    }
}
