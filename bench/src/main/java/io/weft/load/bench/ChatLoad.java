package io.weft.load.bench;

/**
 * The chat clients the ladder drives, on one of the bench's transports: client {@code i} is in room
 * {@code i % rooms}; a publish sends {@code {"t": <intended send time>, "p": <padding>}} to the room's channel, and
 * every message that arrives is reported with the intended time it carries ({@code System.nanoTime()} of this JVM,
 * where senders and receivers live). {@link LibraryChatLoad} runs on {@code io.weft.client}, {@link LeanSockets} and
 * {@link LeanPolls} on raw sockets; all speak plain Bayeux, to Weft, CometD or Faye alike.
 */
interface ChatLoad extends AutoCloseable {
    /** Told of each arrival, on a client thread. */
    @FunctionalInterface
    interface Arrivals {
        /** A message arrived at {@code nowNanos}; {@code sentNanos} is its intended send time, or Long.MIN_VALUE. */
        void arrived(long sentNanos, long nowNanos);
    }

    /** Opens {@code clients} clients, each subscribed to its room, over the options' transport. */
    static ChatLoad open(ClientOptions options, int clients, int rooms, Arrivals arrivals) throws Exception {
        return switch (options.transport) {
            case LEAN_WEBSOCKET -> LeanSockets.open(options.urls, clients, rooms, arrivals);
            case LEAN_LONG_POLLING -> LeanPolls.open(options.urls, clients, rooms, arrivals);
            default -> LibraryChatLoad.open(options, clients, rooms, arrivals);
        };
    }

    /** The channel of room {@code room}. */
    static String channel(int room) {
        return "/chat/room" + room;
    }

    /**
     * Batches the clients have written and read so far (HTTP requests and responses, or websocket frames), or null
     * where the clients do not count them (the lean ones).
     */
    default long[] batches() {
        return null;
    }

    /** Client {@code from} publishes to room {@code room}, without waiting (on the ladder's thread). */
    void publish(int from, int room, long sentNanos, String padding);

    @Override
    void close();
}
