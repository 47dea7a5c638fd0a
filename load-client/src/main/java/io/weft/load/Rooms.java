package io.weft.load;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * How many clients are in each room: the number of deliveries a message published there should produce (Weft and
 * CometD deliver to the publisher too when it is subscribed, by default). Thread-safe.
 */
final class Rooms {
    private final AtomicIntegerArray members;

    Rooms(int rooms) {
        this.members = new AtomicIntegerArray(rooms);
    }

    void join(int room) {
        members.incrementAndGet(room);
    }

    void leave(int room) {
        members.decrementAndGet(room);
    }

    int members(int room) {
        return members.get(room);
    }

    int count() {
        return members.length();
    }
}
