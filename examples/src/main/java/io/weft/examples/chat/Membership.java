package io.weft.examples.chat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The rooms one session is in, and its name in each: kept as an attribute of the session, so that the chat's listeners
 * can tell who is speaking and which rooms to leave when the session ends. Thread-safe.
 */
final class Membership {
    private final Map<String, String> names = new ConcurrentHashMap<>();

    void put(String room, String name) {
        names.put(room, name);
    }

    void remove(String room) {
        names.remove(room);
    }

    /** The session's name in {@code room}, or null if it is not in it. */
    String name(String room) {
        return names.get(room);
    }

    /** How many rooms the session is in. */
    int size() {
        return names.size();
    }

    /** Forgets every room; returns them. */
    List<String> clear() {
        List<String> rooms = List.copyOf(names.keySet());
        names.keySet().removeAll(rooms);
        return rooms;
    }
}
