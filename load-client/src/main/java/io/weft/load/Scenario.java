package io.weft.load;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.client.BayeuxClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The classic chat scenario: every {@code batchPause} µs a client (in turn, or at random) publishes {@code batchSize}
 * messages, in one batch, to its rooms; every member of a room receives what is published there. Each batch has an
 * intended send time on a fixed schedule, written into its messages' data; the sender waits for that time but never
 * catches up by skipping, so a slow sender shows as latency. Runs on the calling thread.
 */
final class Scenario {
    private final LoadConfig config;
    private final Random random;
    private final AtomicLong ids;

    /**
     * What was sent.
     *
     * @param firstId the id of the run's first message
     * @param expected how many deliveries the server should make (the sum of the members of each message's room)
     * @param messages how many messages were published
     * @param requests how many batches (requests or frames) carried them
     * @param elapsedNanos from the first intended send to the last batch handed to its client
     * @param publishFailures publishes the server refused or that were lost (counted as their replies come)
     */
    record Outcome(long firstId, long expected, long messages, long requests, long elapsedNanos,
            LongAdder publishFailures) {
    }

    Scenario(LoadConfig config, long seed, AtomicLong ids) {
        this.config = config;
        this.random = new Random(seed);
        this.ids = ids;
    }

    /** The id the next run's first message will have. */
    long nextId() {
        return ids.get();
    }

    Outcome run(RunConfig run, List<Fleet.Member> senders, Rooms rooms) {
        String chat = "x".repeat(run.messageSize());
        long pauseNanos = run.batchPauseMicros() * 1_000;
        LongAdder failures = new LongAdder();
        Promise<Message> counted = Promise.from(reply -> { }, failure -> failures.increment());
        long firstId = ids.get();
        long expected = 0;
        long begin = System.nanoTime();
        long intended = begin;
        int next = 0;
        for (int batch = 0; batch < run.batches(); batch++) {
            waitUntil(intended);
            Fleet.Member sender = senders.get(run.randomize() ? random.nextInt(senders.size()) : next);
            next = (next + 1) % senders.size();
            expected += publishBatch(sender, batch, run.batchSize(), chat, intended, rooms, counted);
            intended += pauseNanos;
        }
        long elapsed = System.nanoTime() - begin;
        return new Outcome(firstId, expected, run.messages(), run.batches(), elapsed, failures);
    }

    private long publishBatch(Fleet.Member sender, int batch, int size, String chat, long intended, Rooms rooms,
            Promise<Message> counted) {
        BayeuxClient client = sender.client();
        int[] memberOf = sender.rooms();
        long expected = 0;
        client.startBatch();
        try {
            for (int i = 0; i < size; i++) {
                int room = memberOf[(batch + i) % memberOf.length];
                Map<String, Object> data = new LinkedHashMap<>(8);
                data.put(Fleet.ROOM, room);
                data.put(Fleet.USER, sender.index());
                data.put(Fleet.CHAT, chat);
                data.put(Fleet.START, intended);
                data.put(Fleet.ID, ids.getAndIncrement());
                client.publish(config.roomChannel(room), data, counted);
                expected += rooms.members(room);
            }
        } finally {
            client.endBatch();
        }
        return expected;
    }

    private static void waitUntil(long deadline) {
        long remaining;
        while ((remaining = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(remaining);
        }
    }
}
