package io.weft.examples.chat;

import io.weft.bayeux.Message;
import io.weft.server.api.Authorizer;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.LocalSession;
import io.weft.server.api.ServerChannel;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chat's member lists across the nodes of a cluster. Each node tells the others its own members of each room on
 * {@value #CHANNEL}, a broadcast channel, which the cluster's broker carries to every node like any other; each node
 * keeps the latest list of every other node ({@link ChatRooms} serves the union).
 *
 * <pre>
 * join or leave on node A -> A's room changes (change number n, under the room's lock)
 *   -> /chat-roster {node: A, ttl, rooms: {lobby: {change: n, members: [...]}}}  ~~ broker ~~>  node B
 *   -> B keeps A's list of lobby (unless it knows a newer one from A) until ttl from now, and sends its own
 *      subscribers of /members/lobby the union
 * every announceEvery: each node sends its lists of all its rooms again (64 rooms a message), and drops the lists of
 *   other nodes it has not heard again within their ttl (3 announcements): a node that died or lost Redis
 * a node starting: /chat-roster {node, hello: true}; the others send their lists at once, not at their next turn
 * </pre>
 *
 * <p>Only the server publishes there: an authorizer refuses clients both publishing and subscribing. A node's change
 * numbers only grow (one counter over all its rooms), and a node's id is new at every start, so a list that arrives
 * late (a periodic one that crossed a change) never replaces a newer one.
 *
 * <p>Threads: {@link #announce} runs on the thread of the change, under the room's lock; the periodic announcements
 * and expiry on the roster's own timer thread ({@value #THREAD}, a daemon, stopped by {@link #close}); what other
 * nodes say, on the broker's thread. None blocks.
 */
final class Roster implements AutoCloseable {
    static final String CHANNEL = "/chat-roster";
    /** A node's list expires this many announcement periods after it was last heard. */
    static final int EXPIRES_AFTER = 3;
    static final int ROOMS_PER_MESSAGE = 64;
    static final String THREAD = "chat-roster";

    private static final Logger LOG = LoggerFactory.getLogger(Roster.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final long MAX_TTL = TimeUnit.MINUTES.toMillis(10);
    private static final int MAX_NODE_ID = 64;

    /** A node's members of one room, numbered by its change counter. */
    record RoomList(String room, long change, List<String> names) {
    }

    private final ChatRooms chat;
    private final ServerChannel channel;
    private final long ttl;
    private final ScheduledExecutorService timer;
    private final LocalSession session;

    private Roster(BayeuxServer bayeux, ChatRooms chat, long everyMillis) {
        this.chat = chat;
        this.ttl = everyMillis * EXPIRES_AFTER;
        this.channel = bayeux.createChannelIfAbsent(CHANNEL, created -> {
            created.setPersistent(true);
            created.addAuthorizer((operation, id, session, message) ->
                    Authorizer.Result.deny("the_roster_is_the_servers"));
        });
        this.timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, THREAD);
            thread.setDaemon(true);
            return thread;
        });
        this.session = bayeux.newLocalSession(THREAD);
    }

    /** Starts the roster of {@code chat}: listens to the other nodes, says hello, announces every {@code everyMillis}. */
    static Roster start(BayeuxServer bayeux, ChatRooms chat, long everyMillis) {
        if (everyMillis < 10 || everyMillis > MAX_TTL / EXPIRES_AFTER) {
            throw new IllegalArgumentException("the roster's period must be 10 ms to 200 s: " + everyMillis + " ms");
        }
        Roster roster = new Roster(bayeux, chat, everyMillis);
        roster.session.handshake();
        roster.session.subscribe(CHANNEL, roster::heard);
        roster.channel.publish(null, Map.of("node", chat.node(), "hello", true));
        roster.timer.scheduleWithFixedDelay(roster::tick, everyMillis, everyMillis, TimeUnit.MILLISECONDS);
        return roster;
    }

    /** A new node id: 64 random bits in hex. */
    static String newNodeId() {
        return String.format("%016x", RANDOM.nextLong());
    }

    /** Tells the other nodes this node's list of one room, which just changed. */
    void announce(RoomList list) {
        publish(List.of(list));
    }

    private void tick() {
        try {
            announceAll();
            chat.expire(now());
        } catch (RuntimeException x) {
            // the next period tries again; a timer task that throws would never run again
            LOG.warn("the chat's roster could not announce or expire lists: {}", x.toString());
        }
    }

    private void announceAll() {
        List<RoomList> lists = chat.localLists();
        for (int from = 0; from < lists.size(); from += ROOMS_PER_MESSAGE) {
            publish(lists.subList(from, Math.min(lists.size(), from + ROOMS_PER_MESSAGE)));
        }
    }

    private void publish(List<RoomList> lists) {
        Map<String, Object> rooms = new LinkedHashMap<>();
        for (RoomList list : lists) {
            rooms.put(list.room(), Map.of("change", list.change(), "members", list.names()));
        }
        channel.publish(null, Map.of("node", chat.node(), "ttl", ttl, "rooms", rooms));
    }

    /** What a node said on the roster channel: this node's own messages come back here too, and are skipped. */
    private void heard(Message message) {
        Map<String, Object> data = message.getDataAsMap();
        if (data == null || !(data.get("node") instanceof String from) || from.isEmpty()
                || from.length() > MAX_NODE_ID) {
            ignore(data);
            return;
        }
        if (from.equals(chat.node())) {
            return;
        }
        if (Boolean.TRUE.equals(data.get("hello"))) {
            try {
                timer.execute(this::tick); // not on the broker's thread
            } catch (RejectedExecutionException closing) {
                // this node is stopping
            }
            return;
        }
        long lasts = data.get("ttl") instanceof Number number ? number.longValue() : 0;
        if (lasts <= 0 || lasts > MAX_TTL || !(data.get("rooms") instanceof Map<?, ?> rooms)) {
            ignore(data);
            return;
        }
        long expiresAt = now() + lasts;
        rooms.forEach((key, value) -> {
            String room = ChatNames.room(key);
            if (room != null && value instanceof Map<?, ?> list && list.get("change") instanceof Number change
                    && list.get("members") instanceof List<?> names) {
                List<String> valid = new ArrayList<>(names.size());
                names.stream().map(ChatNames::user).filter(Objects::nonNull).forEach(valid::add);
                chat.heard(from, room, change.longValue(), List.copyOf(valid), expiresAt);
            } else {
                ignore(data);
            }
        });
    }

    private static void ignore(Map<String, Object> data) {
        // only a writer other than Weft's nodes on the cluster's Redis could send this
        LOG.debug("ignored a message on {} that is no node's member list: {}", CHANNEL, data);
    }

    private static long now() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    }

    /** Stops announcing and listening; the other nodes forget this node's lists when they expire. */
    @Override
    public void close() {
        timer.shutdownNow();
        session.disconnect();
    }
}
