package io.weft.load;

import java.nio.file.Path;

/**
 * What stays fixed for a whole load-client session: where the server is, how clients talk to it, and how they are
 * spread over rooms. Built from flags and prompts by {@link LoadClient}; immutable.
 *
 * @param server host name of the Bayeux server
 * @param port its port
 * @param transport {@code websocket} or {@code long-polling}
 * @param ssl whether to use https/wss
 * @param maxThreads threads of the pool all clients share
 * @param context the Bayeux path ({@code /cometd})
 * @param channel the channel prefix; room {@code n} is {@code <channel>/<n>}
 * @param rooms how many rooms
 * @param roomsPerClient how many distinct rooms each client joins
 * @param recordLatency whether to record each message's latency (always counted)
 * @param ack whether clients ask for the acknowledged-messages extension
 * @param results the folder for the CSV and charts
 */
public record LoadConfig(String server, int port, String transport, boolean ssl, int maxThreads, String context,
        String channel, int rooms, int roomsPerClient, boolean recordLatency, boolean ack, Path results) {
    public static final String WEBSOCKET = "websocket";
    public static final String LONG_POLLING = "long-polling";
    public static final String EVENTSOURCE = "eventsource";

    /** Refuses a connection type the load tool's clients do not speak. */
    static void requireTransport(String transport) {
        if (!WEBSOCKET.equals(transport) && !LONG_POLLING.equals(transport) && !EVENTSOURCE.equals(transport)) {
            throw new IllegalArgumentException("transport must be websocket, long-polling or eventsource: "
                    + transport);
        }
    }

    public LoadConfig {
        requireTransport(transport);
        requireAtLeast("port", port, 0);
        requireAtLeast("max threads", maxThreads, 8);
        requireAtLeast("rooms", rooms, 1);
        requireAtLeast("rooms per client", roomsPerClient, 1);
        if (roomsPerClient > rooms) {
            throw new IllegalArgumentException("rooms per client (" + roomsPerClient + ") cannot exceed rooms ("
                    + rooms + ")");
        }
        if (!context.startsWith("/")) {
            throw new IllegalArgumentException("context must start with '/': " + context);
        }
    }

    static void requireAtLeast(String name, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be at least " + min + ", was " + value);
        }
    }

    /** The Bayeux URL: {@code http://server:port/context}. */
    public String url() {
        return (ssl ? "https" : "http") + "://" + server + ":" + port + context;
    }

    /** The channel of room {@code room}. */
    public String roomChannel(int room) {
        return channel + "/" + room;
    }
}
