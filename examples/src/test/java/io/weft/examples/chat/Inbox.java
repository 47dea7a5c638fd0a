package io.weft.examples.chat;

import io.weft.bayeux.Message;
import io.weft.client.MessageListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Collects what a subscription receives; tests wait (bounded) for the message they expect. */
final class Inbox implements MessageListener {
    private final BlockingQueue<Message> messages = new LinkedBlockingQueue<>();

    @Override
    public void onMessage(Message message) {
        messages.add(message);
    }

    /** The first message whose data matches, skipping others; fails after 10 s. */
    Map<String, Object> next(Predicate<Map<String, Object>> matching) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            Message message = messages.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (message == null) {
                throw new AssertionError("no matching message within 10 s");
            }
            Map<String, Object> data = message.getDataAsMap();
            if (data != null && matching.test(data)) {
                return data;
            }
        }
    }

    /**
     * Everything received up to and including the first message whose data matches (a marker), in order: what did
     * not arrive before the marker did not arrive at all, where both came the same way. Fails after 10 s.
     */
    List<Map<String, Object>> until(Predicate<Map<String, Object>> marker) throws InterruptedException {
        List<Map<String, Object>> seen = new ArrayList<>();
        next(data -> {
            seen.add(data);
            return marker.test(data);
        });
        return seen;
    }

    /** The next message of this type about this user. */
    Map<String, Object> next(String type, String user) throws InterruptedException {
        return next(data -> type.equals(data.get("type")) && user.equals(data.get("user")));
    }
}
