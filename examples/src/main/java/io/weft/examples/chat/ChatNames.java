package io.weft.examples.chat;

import java.util.regex.Pattern;

/** What the chat accepts as a room name and as a user name; everything else is refused before it is stored. */
final class ChatNames {
    private static final Pattern ROOM = Pattern.compile("[A-Za-z0-9_-]{1,32}");
    private static final int MAX_USER = 24;

    private ChatNames() {
    }

    /** The room name, or null if {@code value} is not one: 1 to 32 letters, digits, '-' or '_'. */
    static String room(Object value) {
        return value instanceof String room && ROOM.matcher(room).matches() ? room : null;
    }

    /** The user name trimmed, or null if it is empty, longer than 24 characters, or holds control characters. */
    static String user(Object value) {
        if (!(value instanceof String name)) {
            return null;
        }
        String trimmed = name.strip();
        if (trimmed.isEmpty() || trimmed.length() > MAX_USER || trimmed.chars().anyMatch(Character::isISOControl)) {
            return null;
        }
        return trimmed;
    }
}
