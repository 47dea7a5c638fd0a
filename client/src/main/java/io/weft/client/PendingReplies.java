package io.weft.client;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The messages sent and still waiting for their reply, by message id, each with the handler its reply goes to. On a
 * persistent transport a batch's replies share one timer; on a one-shot transport the exchange itself bounds the wait.
 * Each entry is taken exactly once: by its reply, by a failure, or by its timer. Thread-safe.
 */
final class PendingReplies {
    private final Map<String, Pending> byId = new ConcurrentHashMap<>();

    /** One message waiting for its reply. */
    record Pending(Message.Mutable request, ClientTransport transport, Promise<Message> handler, Batch batch) {
        String id() {
            return request.getId();
        }

        /** Marks this reply as in; the last reply of a batch stops the batch's timer. */
        void settle() {
            if (batch != null) {
                batch.settleOne();
            }
        }
    }

    /** The replies a batch waits for, sharing one timer. */
    static final class Batch {
        private final AtomicInteger remaining;
        private volatile ScheduledFuture<?> timer;

        Batch(int size) {
            this.remaining = new AtomicInteger(size);
        }

        void timer(ScheduledFuture<?> timer) {
            this.timer = timer;
            if (remaining.get() <= 0) {
                timer.cancel(false);
            }
        }

        private void settleOne() {
            if (remaining.decrementAndGet() == 0) {
                ScheduledFuture<?> scheduled = timer;
                if (scheduled != null) {
                    scheduled.cancel(false);
                }
            }
        }
    }

    void add(Pending pending) {
        byId.put(pending.id(), pending);
    }

    /** The entry for {@code id}, removed; null if none (already settled, or never sent by this client). */
    Pending take(String id) {
        Pending pending = id == null ? null : byId.remove(id);
        if (pending != null) {
            pending.settle();
        }
        return pending;
    }

    /** Every entry sent over {@code transport}, removed. */
    List<Pending> takeAll(ClientTransport transport) {
        List<Pending> taken = new ArrayList<>();
        for (Pending pending : byId.values()) {
            if ((transport == null || pending.transport() == transport) && byId.remove(pending.id(), pending)) {
                pending.settle();
                taken.add(pending);
            }
        }
        return taken;
    }
}
