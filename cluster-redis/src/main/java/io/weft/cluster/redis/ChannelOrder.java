package io.weft.cluster.redis;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.server.spi.History;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Sharded pub/sub: puts the publications of each history channel back in offset order before the engine gets them. A
 * node that hears a channel only through a wildcard's name gets its publications from the publishing nodes' own
 * SPUBLISHes, sent after each script ran, so two nodes' publications may come in the other order (README, "History").
 * A channel heard for the first time (or in a new epoch) is held {@link #WAIT_MILLIS} before its first delivery, since
 * where it starts is not known until its late publications had time to come. Then the next offset is delivered at
 * once; one further ahead is held until the missing ones come, for at most
 * {@link #WAIT_MILLIS} (then the gap is given up and counted: the publication was lost on its way, and is in the
 * history); one at or below the last delivered is a late copy and dropped.
 *
 * <p>Called on the pub/sub connections' threads and on the scheduler's; each channel's deliveries are made under its
 * lock, so the engine gets a channel's publications one at a time, in order.
 */
final class ChannelOrder {
    /** How long a publication waits for earlier ones of its channel; forwarding takes a few milliseconds. */
    static final long WAIT_MILLIS = 500;
    /** The most publications held per channel; past it the gap is given up. */
    static final int MAX_HELD = 1_000;
    /** The most channels remembered; the least recently heard is forgotten (what it held delivered first). */
    static final int MAX_CHANNELS = 10_000;

    private final Consumer<Message> out;
    private final BiConsumer<Runnable, Long> scheduler;
    private final LongAdder gaps;
    private final LongAdder late;
    /** By channel name. Guarded by itself; a channel's {@link Order} is guarded by itself. */
    private final Map<String, Order> channels = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Order> eldest) {
            if (size() <= MAX_CHANNELS) {
                return false;
            }
            synchronized (eldest.getValue()) {
                eldest.getValue().giveUp();
            }
            return true;
        }
    };

    /**
     * @param out the engine's delivery
     * @param scheduler runs a task after a delay in milliseconds
     * @param gaps counts the gaps given up
     * @param late counts the publications dropped as late copies
     */
    ChannelOrder(Consumer<Message> out, BiConsumer<Runnable, Long> scheduler, LongAdder gaps, LongAdder late) {
        this.out = out;
        this.scheduler = scheduler;
        this.gaps = gaps;
        this.late = late;
    }

    /**
     * This node stopped listening to {@code subscription} (a channel or a wildcard): forgets the channels it covers, and
     * drops what they held, so that the first publication heard after a new subscription starts the channel's order
     * afresh instead of waiting for the ones published meanwhile, which will not come.
     */
    void forget(ChannelId subscription) {
        synchronized (channels) {
            channels.keySet().removeIf(name -> subscription.isWild()
                    ? ChannelId.isValid(name) && subscription.matches(ChannelId.of(name))
                    : subscription.id().equals(name));
        }
    }

    /** A publication of {@code channel} at {@code position}, stamped with it. */
    void accept(String channel, History.Position position, Message message) {
        Order order;
        synchronized (channels) {
            order = channels.computeIfAbsent(channel, name -> new Order());
        }
        synchronized (order) {
            order.accept(position, message);
        }
    }

    private final class Order {
        private String epoch;
        private long last;
        private final TreeMap<Long, Message> held = new TreeMap<>();
        private boolean waiting;
        /** Heard for less than {@link #WAIT_MILLIS}: where it starts is not known yet, so everything is held. */
        private boolean fresh;

        void accept(History.Position position, Message message) {
            long offset = position.offset();
            if (epoch == null || !epoch.equals(position.epoch())) { // the first, or the history was lost
                giveUp();
                epoch = position.epoch();
                fresh = true;
                held.put(offset, message);
                waitForMore();
                return;
            }
            if (fresh) {
                held.putIfAbsent(offset, message);
                return;
            }
            if (offset <= last || held.containsKey(offset)) {
                late.increment();
                return;
            }
            if (offset == last + 1) {
                deliver(offset, message);
                return;
            }
            held.put(offset, message);
            if (held.size() > MAX_HELD) {
                skipGap();
            } else {
                waitForMore();
            }
        }

        private void waitForMore() {
            if (!waiting) {
                waiting = true;
                scheduler.accept(this::waited, WAIT_MILLIS);
            }
        }

        private void waited() {
            synchronized (this) {
                waiting = false;
                if (fresh) { // it starts at the first held: a node that just began to hear it missed those before
                    fresh = false;
                    Map.Entry<Long, Message> first = held.pollFirstEntry();
                    if (first != null) {
                        deliver(first.getKey(), first.getValue());
                    }
                } else if (!held.isEmpty()) {
                    skipGap();
                }
                if (!held.isEmpty()) {
                    waitForMore();
                }
            }
        }

        /** Gives up the first gap: delivers the first held publication and those that follow it without one. */
        private void skipGap() {
            gaps.increment();
            Map.Entry<Long, Message> first = held.pollFirstEntry();
            deliver(first.getKey(), first.getValue());
        }

        /** Delivers what is held, in order, giving up every gap (a channel forgotten, or a new epoch). */
        void giveUp() {
            if (fresh && !held.isEmpty()) {
                fresh = false;
                Map.Entry<Long, Message> first = held.pollFirstEntry();
                deliver(first.getKey(), first.getValue());
            }
            fresh = false;
            while (!held.isEmpty()) {
                skipGap();
            }
        }

        private void deliver(long offset, Message message) {
            out.accept(message);
            last = offset;
            Message next;
            while ((next = held.remove(last + 1)) != null) {
                out.accept(next);
                last++;
            }
        }
    }
}
