package io.weft.server.testing;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** Messages a test client has received and not yet taken; tests wait on a condition, never on a sleep. */
public final class Inbox {
    private final List<Map<String, Object>> messages = new ArrayList<>();

    public synchronized void add(List<Map<String, Object>> received) {
        messages.addAll(received);
        notifyAll();
    }

    /** Takes the first message that matches, waiting up to {@code seconds}; fails the test if none comes. */
    public Map<String, Object> take(Predicate<Map<String, Object>> match, long seconds, String what) {
        Map<String, Object> found = poll(match, seconds);
        if (found == null) {
            throw new AssertionError("no " + what + " within " + seconds + " s; received: " + snapshot());
        }
        return found;
    }

    /** Takes the first message that matches, waiting up to {@code seconds}; null if none comes. */
    public synchronized Map<String, Object> poll(Predicate<Map<String, Object>> match, long seconds) {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (true) {
            for (Iterator<Map<String, Object>> it = messages.iterator(); it.hasNext(); ) {
                Map<String, Object> message = it.next();
                if (match.test(message)) {
                    it.remove();
                    return message;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
    }

    public synchronized List<Map<String, Object>> snapshot() {
        return List.copyOf(messages);
    }

    public static Predicate<Map<String, Object>> channel(String channel) {
        return message -> channel.equals(message.get("channel"));
    }

    /** The reply to the message with this id: a delivery of a client's own publish carries its id too, not this. */
    public static Predicate<Map<String, Object>> reply(String channel, String id) {
        return message -> channel.equals(message.get("channel")) && id.equals(String.valueOf(message.get("id")))
                && message.containsKey("successful");
    }
}
