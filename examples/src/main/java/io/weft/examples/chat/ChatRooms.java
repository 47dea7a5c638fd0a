package io.weft.examples.chat;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.Authorizer;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.EndReason;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerSession;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The chat's server side, written against Weft's server API only: who is in which room, join and leave notices, and
 * the member lists. Browsers never announce joins or leaves themselves; the server does, so a user whose tab is
 * closed (or whose network dies) leaves when the session ends.
 *
 * <p>Channels:
 * <ul>
 *   <li>{@value #JOIN} {@code {room, name}}: a service; the reply's data is {@code {room, name, members}}, or
 *       {@code {error}} when the room or name is not acceptable;
 *   <li>{@value #LEAVE} {@code {room}}: a service; the reply's data is {@code {room}};
 *   <li>{@value #ROOMS}: a service; the reply's data is {@code [{room, members}]}, the rooms that have members;
 *   <li>{@code /chat/<room>}: clients publish {@code {text}}; a channel listener checks that the publisher is in
 *       the room and rewrites the message to {@code {type: "chat", user, text, time}} with the name the server knows;
 *       the server publishes {@code {type: "join" | "leave", user, time}} there;
 *   <li>{@code /members/<room>}: {@code {room, members}}, sent by the server to this node's subscribers after every
 *       change; an authorizer refuses client publishes.
 * </ul>
 *
 * <p>Created once per {@link BayeuxServer} with {@link #install(BayeuxServer)}, on the thread assembling the server;
 * or, for one node of a cluster (a {@code Broker} installed on the server), with
 * {@link #installOnCluster(BayeuxServer, Duration)}. On a cluster, chat lines and join and leave notices cross
 * between the nodes as every broadcast does, and each node keeps the members of its own sessions: it tells the other
 * nodes its list of each room through {@link Roster} ({@value Roster#CHANNEL}), and a room's members are the union of
 * every node's latest list, in the order of the nodes' ids (so every node shows the same order), each node's in the
 * order its users joined. Names are not unique, on one node or on several: two sessions may join under one name.
 *
 * <p>Its callbacks run on the threads the engine calls them on (the thread processing a client's message, the
 * scheduler's for an expired session, the broker's for another node's list, the roster's timer); none blocks.
 */
public final class ChatRooms {
    public static final String JOIN = "/service/chat/join";
    public static final String LEAVE = "/service/chat/leave";
    public static final String ROOMS = "/service/chat/rooms";
    public static final String CHAT_PREFIX = "/chat/";
    public static final String MEMBERS_PREFIX = "/members/";

    /** The session attribute holding the session's {@link Membership}. */
    static final String MEMBERSHIP = Membership.class.getName();

    /**
     * The rooms one session may be in at once: each costs a room's state here, and on a cluster a place in this node's
     * periodic announcements. A join past it is refused with {@code 403::too_many_rooms}.
     */
    public static final int MAX_ROOMS_PER_SESSION = 32;

    private static final int MAX_TEXT = 2000;

    private final BayeuxServer bayeux;
    private final Map<String, Room> rooms = new ConcurrentHashMap<>();
    private final Object membershipLock = new Object();
    /** Numbers this node's changes to its member lists, over every room, so that other nodes can tell newer from older. */
    private final AtomicLong changes = new AtomicLong();
    /** This node's id among the nodes of a cluster: random, new at every start. */
    private final String node = Roster.newNodeId();
    /** The cluster's side, or null on a single node. */
    private volatile Roster roster;

    private ChatRooms(BayeuxServer bayeux) {
        this.bayeux = bayeux;
        // checked before the join service runs
        bayeux.createChannelIfAbsent(JOIN).addAuthorizer(this::withinRoomLimit);
    }

    private Authorizer.Result withinRoomLimit(Authorizer.Operation operation, ChannelId channel, ServerSession session,
            Message message) {
        if (operation == Authorizer.Operation.PUBLISH
                && session.getAttribute(MEMBERSHIP) instanceof Membership membership
                && membership.size() >= MAX_ROOMS_PER_SESSION) {
            Map<String, Object> data = message.getDataAsMap();
            String room = data == null ? null : ChatNames.room(data.get("room"));
            if (room == null || membership.name(room) == null) { // joining again under another name is fine
                return Authorizer.Result.deny("too_many_rooms");
            }
        }
        return Authorizer.Result.grant();
    }

    // tag::install[]
    /** Adds the chat's services, listeners and authorizers to {@code bayeux}. */
    public static ChatRooms install(BayeuxServer bayeux) {
        ChatRooms chat = new ChatRooms(Objects.requireNonNull(bayeux, "bayeux"));
        bayeux.addService(JOIN, chat::join);
        bayeux.addService(LEAVE, chat::leave);
        bayeux.addService(ROOMS, (from, request, answer) -> answer.succeed(chat.roomList()));
        bayeux.createChannelIfAbsent("/chat/*", channel -> {
            channel.setPersistent(true);
            channel.addListener((ServerChannel.MessageListener) chat::onChatMessage);
        });
        bayeux.createChannelIfAbsent("/members/*", channel -> {
            channel.setPersistent(true);
            channel.addAuthorizer((operation, id, session, message) -> operation == Authorizer.Operation.PUBLISH
                    ? Authorizer.Result.deny("members_are_published_by_the_server")
                    : Authorizer.Result.grant());
        });
        bayeux.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionRemoved(ServerSession session, EndReason reason) {
                chat.leaveAll(session, reason);
            }
        });
        return chat;
    }
    // end::install[]

    /**
     * As {@link #install(BayeuxServer)}, for one node of a cluster: the server's {@code Broker} must be installed
     * already (it takes no session after this, and this makes one). This node announces its members of each room at
     * once after every change, and again every {@code announceEvery}; the other nodes forget its list of a room three
     * announcements after the last one they heard (a node that died, or lost Redis). {@link #close()} stops it.
     */
    public static ChatRooms installOnCluster(BayeuxServer bayeux, Duration announceEvery) {
        ChatRooms chat = install(bayeux);
        chat.roster = Roster.start(bayeux, chat, announceEvery.toMillis());
        return chat;
    }

    /** The names in {@code room}: every node's, in the order of the nodes' ids, and the order they joined there. */
    public List<String> members(String room) {
        Room found = rooms.get(room);
        return found == null ? List.of() : found.names();
    }

    /**
     * On a cluster, before the server closes (while its broker still runs): this node's users leave their rooms, the
     * notices (reason {@code node stopped}) and the emptied lists reaching the other nodes at once, rather than when
     * this node's lists expire there; then the roster stops. Nothing on a single node. The server closes itself.
     */
    public void close() {
        Roster running = roster;
        if (running != null) {
            for (ServerSession session : bayeux.getSessions()) {
                leaveAll(session, "node stopped");
            }
            running.close();
        }
    }

    // tag::join[]
    private void join(ServerSession from, Message request, Promise<Object> answer) {
        Map<String, Object> data = request.getDataAsMap();
        String room = data == null ? null : ChatNames.room(data.get("room"));
        String name = data == null ? null : ChatNames.user(data.get("name"));
        if (room == null || name == null) {
            answer.succeed(Map.of("error", "a room is 1 to 32 letters, digits, '-' or '_'; a name is 1 to 24 "
                    + "printable characters"));
            return;
        }
        membership(from).put(room, name);
        List<String> members = null;
        while (members == null) { // a room being dropped by its last member's leave refuses, and is made anew
            members = rooms.computeIfAbsent(room, Room::new).add(from, name);
        }
        answer.succeed(Map.of("room", room, "name", name, "members", members));
    }
    // end::join[]

    private void leave(ServerSession from, Message request, Promise<Object> answer) {
        Map<String, Object> data = request.getDataAsMap();
        String room = data == null ? null : ChatNames.room(data.get("room"));
        if (room == null) {
            answer.succeed(Map.of("error", "no such room"));
            return;
        }
        membership(from).remove(room);
        leaveRoom(from, room, "left");
        answer.succeed(Map.of("room", room));
    }

    private void leaveAll(ServerSession session, EndReason reason) {
        leaveAll(session, reason == EndReason.TIMED_OUT ? "timed out" : "left");
    }

    private void leaveAll(ServerSession session, String why) {
        if (session.getAttribute(MEMBERSHIP) instanceof Membership membership) {
            for (String room : membership.clear()) {
                leaveRoom(session, room, why);
            }
        }
    }

    private void leaveRoom(ServerSession session, String room, String why) {
        Room found = rooms.get(room);
        if (found != null && found.remove(session, why)) {
            rooms.remove(room, found); // it was the last member; the room now refuses joins
        }
    }

    private List<Map<String, Object>> roomList() {
        List<Map<String, Object>> list = new ArrayList<>();
        rooms.forEach((name, room) -> {
            int size = room.names().size();
            if (size > 0) {
                list.add(Map.of("room", name, "members", size));
            }
        });
        list.sort((a, b) -> ((String) a.get("room")).compareTo((String) b.get("room")));
        return list;
    }

    // tag::listener[]
    /** Vets what clients publish to {@code /chat/<room>}: only members may speak, under the name they joined with. */
    private boolean onChatMessage(ServerSession from, ServerChannel channel, Message.Mutable message) {
        if (from == null || from.isLocal()) {
            return true; // the server's own notices
        }
        ChannelId id = message.getChannelId();
        String room = id.segment(id.depth() - 1);
        String name = membership(from).name(room);
        Map<String, Object> data = message.getDataAsMap();
        if (name == null || data == null || !(data.get("text") instanceof String text) || text.isBlank()) {
            return false; // the publisher is told 404::message_deleted
        }
        String trimmed = text.length() > MAX_TEXT ? text.substring(0, MAX_TEXT) : text;
        message.setData(Map.of("type", "chat", "user", name, "text", trimmed, "time", System.currentTimeMillis()));
        return true;
    }
    // end::listener[]

    private Membership membership(ServerSession session) {
        synchronized (membershipLock) {
            if (session.getAttribute(MEMBERSHIP) instanceof Membership existing) {
                return existing;
            }
            Membership created = new Membership();
            session.setAttribute(MEMBERSHIP, created);
            return created;
        }
    }

    // ---- the cluster's side, called by Roster ----

    String node() {
        return node;
    }

    /** This node's list of every room it has members in, to announce. */
    List<Roster.RoomList> localLists() {
        List<Roster.RoomList> lists = new ArrayList<>();
        for (Room room : rooms.values()) {
            Roster.RoomList list = room.local();
            if (list != null) {
                lists.add(list);
            }
        }
        return lists;
    }

    /** Another node's list of {@code room}, numbered {@code change} there; it holds until {@code expiresAt}. */
    void heard(String from, String room, long change, List<String> names, long expiresAt) {
        while (!rooms.computeIfAbsent(room, Room::new).heard(from, change, names, expiresAt)) {
            // the room was being dropped: a new one takes the list
        }
    }

    /** Forgets the lists of other nodes not heard again by {@code now} (the roster's clock). */
    void expire(long now) {
        rooms.forEach((name, room) -> {
            if (room.expire(now)) {
                rooms.remove(name, room);
            }
        });
    }

    /**
     * Sends {@code data} on {@code channel} to this node's subscribers of it (and of the wildcards that cover it), and
     * to no other node's: each node tells its own sessions what it knows. One message, encoded once for all of them.
     */
    private void deliverHere(String channel, Map<String, Object> data) {
        Set<ServerSession> subscribers = new LinkedHashSet<>();
        addSubscribers(subscribers, channel);
        for (ChannelId wildcard : ChannelId.of(channel).wildcards()) {
            addSubscribers(subscribers, wildcard.id());
        }
        if (subscribers.isEmpty()) {
            return;
        }
        Message.Mutable message = Message.Mutable.create().setChannel(channel).setData(data);
        for (ServerSession subscriber : subscribers) {
            subscriber.deliver(null, message);
        }
    }

    private void addSubscribers(Set<ServerSession> into, String channel) {
        ServerChannel found = bayeux.getChannel(channel);
        if (found != null) {
            into.addAll(found.getSubscribers());
        }
    }

    /** Another node's latest list of a room: {@code change} numbers it there; empty once its last member left. */
    private record Remote(long change, List<String> names, long expiresAt) {
    }

    /**
     * One room: its members on this node by session, the other nodes' lists, and the telling of changes in the order
     * they happened (under the room's lock, so that every member list sent is newer than the one before). A room
     * with no member here and no other node's list is closed: it is being dropped from the map and refuses joins and
     * lists, which then go to a new room.
     */
    private final class Room {
        private final String name;
        private final Map<String, String> members = new LinkedHashMap<>();
        /** By node id. A node's empty list is kept until it expires, so that an older list arriving late is ignored. */
        private final Map<String, Remote> remote = new TreeMap<>();
        /** The number of this node's latest change here. */
        private long change;
        private boolean closed;

        Room(String name) {
            this.name = name;
        }

        /** Every node's names: in the order of the node ids, and the order they joined on each node. */
        synchronized List<String> names() {
            if (remote.isEmpty()) {
                return List.copyOf(members.values());
            }
            Map<String, Collection<String>> byNode = new TreeMap<>();
            byNode.put(node, members.values());
            remote.forEach((id, list) -> byNode.put(id, list.names()));
            List<String> names = new ArrayList<>();
            byNode.values().forEach(names::addAll);
            return List.copyOf(names);
        }

        /** Adds the session under {@code user}; tells the room; returns the member list, or null if closed. */
        synchronized List<String> add(ServerSession session, String user) {
            if (closed) {
                rooms.remove(name, this);
                return null;
            }
            String previous = members.put(session.getId(), user);
            if (!user.equals(previous)) {
                notice("join", user, null);
                changed();
            }
            return names();
        }

        /** Removes the session, tells the room if it was in; returns whether the room is now empty. */
        synchronized boolean remove(ServerSession session, String why) {
            String user = members.remove(session.getId());
            ServerChannel chat = bayeux.getChannel(CHAT_PREFIX + name);
            ServerChannel list = bayeux.getChannel(MEMBERS_PREFIX + name);
            if (chat != null) {
                chat.unsubscribe(session);
            }
            if (list != null) {
                list.unsubscribe(session);
            }
            if (user != null) {
                notice("leave", user, why);
                changed();
            }
            closed = members.isEmpty() && remote.isEmpty();
            return closed;
        }

        /** This node's list changed: the other nodes are told it, and this node's subscribers the room's list. */
        private void changed() {
            change = changes.incrementAndGet();
            Roster cluster = roster;
            if (cluster != null) {
                cluster.announce(new Roster.RoomList(name, change, List.copyOf(members.values())));
            }
            deliverMembers();
        }

        /** This node's list, or null if it has no member here. */
        synchronized Roster.RoomList local() {
            return members.isEmpty() ? null : new Roster.RoomList(name, change, List.copyOf(members.values()));
        }

        /** Takes another node's list, unless a newer one is known; returns false if closed. */
        synchronized boolean heard(String from, long number, List<String> names, long expiresAt) {
            if (closed) {
                rooms.remove(name, this);
                return false;
            }
            Remote known = remote.get(from);
            if (known != null && number < known.change()) {
                // older than what that node said since (its periodic list crossed a change): it is alive, that is all
                remote.put(from, new Remote(known.change(), known.names(), expiresAt));
                return true;
            }
            remote.put(from, new Remote(number, names, expiresAt));
            if (known == null ? !names.isEmpty() : !known.names().equals(names)) {
                deliverMembers();
            }
            return true;
        }

        /** Drops the other nodes' lists that expired, telling this node's members; returns whether the room is empty. */
        synchronized boolean expire(long now) {
            boolean lost = false;
            for (var entries = remote.values().iterator(); entries.hasNext(); ) {
                Remote list = entries.next();
                if (list.expiresAt() - now <= 0) {
                    entries.remove();
                    for (String user : list.names()) {
                        deliverHere(CHAT_PREFIX + name, noticeData("leave", user, "node lost"));
                        lost = true;
                    }
                }
            }
            if (lost) {
                deliverMembers();
            }
            closed = members.isEmpty() && remote.isEmpty();
            return closed;
        }

        private void notice(String type, String user, String why) {
            bayeux.createChannelIfAbsent(CHAT_PREFIX + name).publish(null, noticeData(type, user, why));
        }

        private Map<String, Object> noticeData(String type, String user, String why) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("type", type);
            data.put("user", user);
            if (why != null) {
                data.put("reason", why);
            }
            data.put("time", System.currentTimeMillis());
            return data;
        }

        private void deliverMembers() {
            deliverHere(MEMBERS_PREFIX + name, Map.of("room", name, "members", names()));
        }
    }
}
