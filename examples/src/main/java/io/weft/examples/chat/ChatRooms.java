package io.weft.examples.chat;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.Authorizer;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.EndReason;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerSession;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

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
 *   <li>{@code /members/<room>}: {@code {room, members}}, published by the server after every change; an authorizer
 *       refuses client publishes.
 * </ul>
 *
 * <p>Created once per {@link BayeuxServer} with {@link #install(BayeuxServer)}, on the thread assembling the server.
 * Its callbacks run on the threads the engine calls them on (the thread processing a client's message, or the
 * scheduler's for an expired session); none blocks.
 */
public final class ChatRooms {
    public static final String JOIN = "/service/chat/join";
    public static final String LEAVE = "/service/chat/leave";
    public static final String ROOMS = "/service/chat/rooms";
    public static final String CHAT_PREFIX = "/chat/";
    public static final String MEMBERS_PREFIX = "/members/";

    /** The session attribute holding the session's {@link Membership}. */
    static final String MEMBERSHIP = Membership.class.getName();

    private static final int MAX_TEXT = 2000;

    private final BayeuxServer bayeux;
    private final Map<String, Room> rooms = new ConcurrentHashMap<>();
    private final Object membershipLock = new Object();

    private ChatRooms(BayeuxServer bayeux) {
        this.bayeux = bayeux;
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

    /** The names in {@code room}, in the order they joined; empty for a room nobody is in. */
    public List<String> members(String room) {
        Room found = rooms.get(room);
        return found == null ? List.of() : found.names();
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
        if (session.getAttribute(MEMBERSHIP) instanceof Membership membership) {
            String why = reason == EndReason.TIMED_OUT ? "timed out" : "left";
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

    /**
     * One room: its members by session, and the publishing of notices in the order the changes happened (under the
     * room's lock, so that every member list published is newer than the one before). A room whose last member
     * left is closed: it is being dropped from the map and refuses joins, which then go to a new room.
     */
    private final class Room {
        private final String name;
        private final Map<String, String> members = new LinkedHashMap<>();
        private boolean closed;

        Room(String name) {
            this.name = name;
        }

        synchronized List<String> names() {
            return List.copyOf(members.values());
        }

        /** Adds the session under {@code user}; tells the room; returns the member list, or null if closed. */
        synchronized List<String> add(ServerSession session, String user) {
            if (closed) {
                rooms.remove(name, this);
                return null;
            }
            String previous = members.put(session.getId(), user);
            List<String> names = List.copyOf(members.values());
            if (!user.equals(previous)) {
                notice("join", user, null);
                publishMembers(names);
            }
            return names;
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
                publishMembers(List.copyOf(members.values()));
            }
            closed = members.isEmpty();
            return closed;
        }

        private void notice(String type, String user, String why) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("type", type);
            data.put("user", user);
            if (why != null) {
                data.put("reason", why);
            }
            data.put("time", System.currentTimeMillis());
            bayeux.createChannelIfAbsent(CHAT_PREFIX + name).publish(null, data);
        }

        private void publishMembers(List<String> names) {
            bayeux.createChannelIfAbsent(MEMBERS_PREFIX + name).publish(null, Map.of("room", name, "members", names));
        }
    }
}
