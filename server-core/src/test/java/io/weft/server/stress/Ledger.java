package io.weft.server.stress;

import io.weft.bayeux.ChannelId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What happened, in the order it happened: every publish, every session's subscriptions and every message it
 * received, stamped with ticks of one logical clock, and every problem seen on the way. Ticks are taken by the
 * thread that acts, just before it asks and just after it hears the answer, so that what the server did for a request
 * happened strictly between its two ticks.
 *
 * <p>From this the ledger tells, for a session and a publish, whether the session was surely subscribed to the
 * channel while the message was being published (it must receive it, if its delivery is reliable), and whether it may
 * have been (otherwise receiving it is a fault).
 */
final class Ledger {
    static final long NEVER = Long.MAX_VALUE;

    private final AtomicLong clock = new AtomicLong();
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, Publish> publishes = new ConcurrentHashMap<>();
    private final Queue<SessionLog> sessions = new ConcurrentLinkedQueue<>();
    private final Queue<String> problems = new ConcurrentLinkedQueue<>();
    private final Map<String, LongAdder> counts = new ConcurrentSkipListMap<>();

    long tick() {
        return clock.incrementAndGet();
    }

    long nextPublishId() {
        return ids.incrementAndGet();
    }

    void problem(String what) {
        problems.add(what);
    }

    Queue<String> problems() {
        return problems;
    }

    /** Counts one more {@code what}, for the run's summary. */
    void count(String what) {
        count(what, 1);
    }

    void count(String what, long times) {
        counts.computeIfAbsent(what, key -> new LongAdder()).add(times);
    }

    Map<String, LongAdder> counts() {
        return counts;
    }

    /** One message published by {@code publisher} (its {@code seq}-th), between ticks {@code sent} and {@code answered}. */
    record Publish(long id, String publisher, long seq, ChannelId channel, long sent, long answered, boolean ok) {
    }

    void published(Publish publish) {
        publishes.put(publish.id(), publish);
    }

    int publishCount() {
        return publishes.size();
    }

    SessionLog session(String clientId, String client, boolean reliable) {
        SessionLog log = new SessionLog(clientId, client, reliable);
        sessions.add(log);
        return log;
    }

    Queue<SessionLog> sessions() {
        return sessions;
    }

    /** A subscription of one session: asked at {@code subSent}, confirmed at {@code subAnswered}, and ended likewise. */
    static final class Window {
        final ChannelId pattern;
        final long subSent;
        final long subAnswered;
        volatile long unsubSent = NEVER;
        volatile long unsubAnswered = NEVER;

        Window(ChannelId pattern, long subSent, long subAnswered) {
            this.pattern = pattern;
            this.subSent = subSent;
            this.subAnswered = subAnswered;
        }

        /** Subscribed for the whole time the message was being published. */
        boolean surelyCovers(Publish publish) {
            return pattern.matches(publish.channel()) && subAnswered < publish.sent() && publish.answered() < unsubSent;
        }

        /** Subscribed for some of that time, maybe. */
        boolean mayCover(Publish publish) {
            return pattern.matches(publish.channel()) && subSent < publish.answered() && publish.sent() < unsubAnswered;
        }
    }

    /**
     * One session, as its client saw it. Written by the client's thread only; read by the test once every client has
     * finished.
     */
    final class SessionLog {
        final String clientId;
        final String client;
        /** Whether nothing may be lost: an acknowledged session, or one whose client never drops a reply. */
        final boolean reliable;
        final List<Window> windows = new ArrayList<>();
        final Map<String, Long> lastSeq = new HashMap<>();
        final Set<Long> received = new HashSet<>();
        /** When each message was received. */
        final Map<Long, Long> receivedAt = new HashMap<>();
        /** When its handshake was answered, and when it ended as its client saw it. */
        final long created = tick();
        volatile long ended = NEVER;
        /** Set when the session ended in a way its client did not ask for. */
        volatile String lost;

        SessionLog(String clientId, String client, boolean reliable) {
            this.clientId = clientId;
            this.client = client;
            this.reliable = reliable;
        }

        void subscribed(ChannelId pattern, long sent, long answered) {
            windows.add(new Window(pattern, sent, answered));
        }

        void unsubscribed(ChannelId pattern, long sent, long answered) {
            for (Window window : windows) {
                if (window.pattern.equals(pattern) && window.unsubSent == NEVER) {
                    window.unsubSent = sent;
                    window.unsubAnswered = answered;
                }
            }
        }

        /**
         * The session ended, every subscription with it: asked at {@code sent} (or learned of then), and surely ended
         * by {@code answered}; {@link #NEVER} when its client cannot know when the server ended it.
         */
        void ended(long sent, long answered) {
            if (ended == NEVER) {
                ended = sent;
            }
            for (Window window : windows) {
                if (window.unsubSent == NEVER) {
                    window.unsubSent = sent;
                    window.unsubAnswered = answered;
                }
            }
        }

        /** A delivery: checked at once for order and duplicates, and kept for the checks at the end. */
        void received(long id, String publisher, long seq) {
            count("deliveries received");
            receivedAt.putIfAbsent(id, tick());
            if (!received.add(id)) {
                problem(this + " received message " + id + " (" + publisher + " #" + seq + ") twice");
            }
            Long last = lastSeq.put(publisher, seq);
            if (last != null && last >= seq) {
                problem(this + " received " + publisher + " #" + seq + " after #" + last + ": out of publish order");
            }
        }

        /** The publishes this session must have received and has not, as far as the ledger knows now. */
        List<Publish> missing() {
            List<Publish> missing = new ArrayList<>();
            for (Publish publish : publishes.values()) {
                if (publish.ok() && !received.contains(publish.id()) && surelySubscribed(publish)) {
                    missing.add(publish);
                }
            }
            return missing;
        }

        /** How many publishes this session was surely subscribed for. */
        long owed() {
            return publishes.values().stream().filter(publish -> publish.ok() && surelySubscribed(publish)).count();
        }

        /** Deliveries that this session could not have been subscribed for, or whose publish failed. */
        List<String> unexpected() {
            List<String> unexpected = new ArrayList<>();
            for (long id : received) {
                Publish publish = publishes.get(id);
                if (publish == null || !publish.ok()) {
                    unexpected.add("message " + id + " whose publish " + (publish == null ? "is unknown" : "failed"));
                } else if (windows.stream().noneMatch(window -> window.mayCover(publish))) {
                    unexpected.add(publish + " at " + receivedAt.get(id) + " while not subscribed to "
                            + publish.channel() + "; " + history());
                }
            }
            return unexpected;
        }

        private boolean surelySubscribed(Publish publish) {
            for (Window window : windows) {
                if (window.surelyCovers(publish)) {
                    return true;
                }
            }
            return false;
        }

        /** When the session began and ended, and its subscriptions, in ticks. */
        String history() {
            StringBuilder out = new StringBuilder("handshake answered at " + created + ", ended at "
                    + (ended == NEVER ? "-" : ended) + ", subscriptions");
            for (Window window : windows) {
                out.append(' ').append(window.pattern).append(" [").append(window.subSent).append('-')
                        .append(window.subAnswered).append(", ").append(window.unsubSent == NEVER ? "-"
                        : window.unsubSent + "-" + window.unsubAnswered).append(']');
            }
            return windows.isEmpty() ? out.append(" none").toString() : out.toString();
        }

        @Override
        public String toString() {
            return client + "'s session " + clientId;
        }
    }
}
