package io.weft.load;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.client.BayeuxClient;
import io.weft.client.MessageListener;
import io.weft.client.TrafficListener;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The simulated clients: each one handshakes, joins {@code roomsPerClient} distinct random rooms, and records every
 * message it receives (latency, and whether it saw that message before). Grown and shrunk by the main thread between
 * runs; receiving happens on the shared client threads.
 */
final class Fleet {
    /** Field names in each load message's data. */
    static final String START = "start";
    static final String ID = "id";
    static final String ROOM = "room";
    static final String USER = "user";
    static final String CHAT = "chat";

    private static final int MAX_HANDSHAKES_IN_FLIGHT = 200;

    private final LoadConfig config;
    private final ClientRuntime runtime;
    private final Measurement measurement;
    private final Rooms rooms;
    private final Random random;
    private final List<Member> members = new ArrayList<>();
    private final AtomicInteger ready = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final Semaphore handshakes = new Semaphore(MAX_HANDSHAKES_IN_FLIGHT);
    private final TrafficListener traffic;

    Fleet(LoadConfig config, ClientRuntime runtime, Measurement measurement, long seed) {
        this.config = config;
        this.runtime = runtime;
        this.measurement = measurement;
        this.rooms = new Rooms(config.rooms());
        this.random = new Random(seed);
        this.traffic = new TrafficListener() {
            @Override
            public void onReceive(BayeuxClient client, List<? extends Message> batch) {
                for (Message message : batch) {
                    if (!message.isMeta() && !message.containsKey(Message.SUCCESSFUL)) {
                        measurement.response();
                        return;
                    }
                }
            }
        };
    }

    Rooms rooms() {
        return rooms;
    }

    List<Member> members() {
        return members;
    }

    int size() {
        return members.size();
    }

    /** Handshakes new clients up to {@code count}, or disconnects the newest down to it (waiting for them). */
    void resize(int count) throws InterruptedException {
        while (members.size() < count) {
            // Bounds the handshakes in flight; a client that never gets ready stops holding the others back.
            handshakes.tryAcquire(30, TimeUnit.SECONDS);
            Member member = new Member(members.size());
            members.add(member);
            member.start();
        }
        if (members.size() > count) {
            List<Member> leaving = new ArrayList<>(members.subList(count, members.size()));
            disconnect(leaving);
            members.removeAll(leaving);
        }
    }

    /**
     * Waits until every client is ready (handshaken and subscribed), printing progress; gives up when nothing moves
     * for {@code stallSeconds}. @return whether all are ready
     */
    boolean awaitReady(PrintStream out, int stallSeconds) throws InterruptedException {
        int target = members.size();
        int last = -1;
        long lastProgress = System.nanoTime();
        while (ready.get() < target) {
            int now = ready.get();
            if (now != last) {
                last = now;
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(stallSeconds)) {
                out.printf("Clients not ready, only %d/%d (%d failed)%n", now, target, failed.get());
                return false;
            }
            out.printf("Waiting for clients %d/%d%n", now, target);
            Thread.sleep(250);
        }
        out.printf("Clients ready: %d%n", target);
        return true;
    }

    /** Starts a run whose message ids begin at {@code firstId}: forgets which messages each client saw. */
    void newRun(long firstId) {
        for (Member member : members) {
            member.newRun(firstId);
        }
    }

    /** Disconnects every client, oldest first, waiting for each batch of replies. */
    void disconnectAll() throws InterruptedException {
        disconnect(new ArrayList<>(members));
        members.clear();
    }

    private void disconnect(List<Member> leaving) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(leaving.size());
        for (Member member : leaving) {
            member.leave(done);
        }
        done.await(30, TimeUnit.SECONDS);
    }

    /** One simulated client and what it has received in the current run. */
    final class Member implements MessageListener {
        private final int index;
        private final BayeuxClient client;
        private final int[] memberOf;
        private final AtomicInteger pending = new AtomicInteger();
        private final BitSet seen = new BitSet();
        private long firstId;
        private volatile boolean isReady;

        Member(int index) {
            this.index = index;
            this.client = runtime.builder(config.url(), traffic).build();
            this.memberOf = pickRooms();
        }

        private int[] pickRooms() {
            int[] picked = new int[config.roomsPerClient()];
            BitSet taken = new BitSet(config.rooms());
            for (int i = 0; i < picked.length; i++) {
                int room;
                do {
                    room = random.nextInt(config.rooms());
                } while (taken.get(room));
                taken.set(room);
                picked[i] = room;
            }
            return picked;
        }

        int index() {
            return index;
        }

        BayeuxClient client() {
            return client;
        }

        /** The rooms this client joined. */
        int[] rooms() {
            return memberOf;
        }

        void start() {
            pending.set(memberOf.length);
            // A failed handshake is retried by the client itself; the subscriptions below wait for its success.
            client.handshake();
            // Queued until the handshake succeeds, then sent as one batch.
            client.batch(() -> {
                for (int room : memberOf) {
                    client.subscribe(config.roomChannel(room), this, Promise.from(
                            reply -> subscribed(room), failure -> failed()));
                }
            });
        }

        private void subscribed(int room) {
            rooms.join(room);
            if (pending.decrementAndGet() == 0) {
                isReady = true;
                ready.incrementAndGet();
                handshakes.release();
            }
        }

        private void failed() {
            if (pending.getAndSet(-1) > 0) {
                failed.incrementAndGet();
                handshakes.release();
            }
        }

        void leave(CountDownLatch done) {
            if (isReady) {
                isReady = false;
                ready.decrementAndGet();
                for (int room : memberOf) {
                    rooms.leave(room);
                }
            }
            client.disconnect(Promise.from(reply -> done.countDown(), failure -> done.countDown()));
        }

        synchronized void newRun(long first) {
            firstId = first;
            seen.clear();
        }

        @Override
        public void onMessage(Message message) {
            long now = System.nanoTime();
            Map<String, Object> data = message.getDataAsMap();
            if (data == null || !(data.get(START) instanceof Number start) || !(data.get(ID) instanceof Number id)) {
                return;
            }
            boolean duplicate;
            synchronized (this) {
                int bit = (int) (id.longValue() - firstId);
                duplicate = bit >= 0 && seen.get(bit);
                if (bit >= 0) {
                    seen.set(bit);
                }
            }
            measurement.arrived(start.longValue(), now, duplicate);
        }
    }
}
