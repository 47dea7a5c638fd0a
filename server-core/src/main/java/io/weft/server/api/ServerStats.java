package io.weft.server.api;

import java.util.Map;

/**
 * What a server is doing and has done since it started: a snapshot from {@link BayeuxServer#getStats()}, cheap
 * enough to take every few seconds (the gauges walk the sessions once). Counters only grow; gauges are now's values.
 * Maps are sorted by key and unmodifiable; keys of reasons are Bayeux errors without their arguments
 * ({@code 402::session_unknown}), at most 64 distinct ones, the rest summed as {@code other}.
 *
 * @param sessionsByConnectionType gauge: live sessions by the connection type they last used ({@code websocket},
 *     {@code long-polling}, {@code callback-polling}, {@code local} for server-side sessions; {@code none} before a
 *     first {@code /meta/connect})
 * @param heldConnects gauge: {@code /meta/connect} requests held open now, waiting for messages or their timeout
 * @param channels gauge: channels in the channel tree (the ancestors a subscription created included)
 * @param subscriptions gauge: subscriptions of all sessions
 * @param handshakesAccepted counter: successful {@code /meta/handshake} replies written to clients
 * @param handshakesRefused counter: refused {@code /meta/handshake} replies written, by reason
 * @param messagesReceived counter: messages from clients other than {@code /meta/*} (publishes, service requests)
 * @param deliveriesByConnectionType counter: messages (not replies) handed to connections to write, by connection type
 * @param bytesWrittenByConnectionType counter: bytes of the responses and frames transports encoded to write (replies
 *     and deliveries, JSONP's callback wrapping included; HTTP and WebSocket framing not), by connection type
 * @param messagesEncoded counter: messages encoded to JSON; a broadcast is encoded once however many sessions receive
 *     it, so under fan-out this stays near the publishes and replies, far below the deliveries
 * @param errorsByReason counter: unsuccessful replies written to clients, by reason (refused handshakes included)
 * @param slowConsumerDisconnects counter: sessions ended because their queue was full ({@code queueOverflow =
 *     DISCONNECT})
 * @param messagesResent counter: messages put back in a queue to be sent again (the ack extension, after a lost
 *     batch)
 * @param sessionsDrained counter: sessions a drain ended, their clients told to handshake again elsewhere
 *     ({@link BayeuxServer#drain}); the handshakes it refused are in {@code handshakesRefused} as
 *     {@code 503::server_draining}
 * @param refusals counter: refusals past each bound ({@link BayeuxServer#getRefusals()}); messages dropped from full
 *     queues are {@link Limit#QUEUE}
 * @param deliveryLatency since start-up: how long published messages took from the publish (past the channel's
 *     listeners) to being handed to each subscriber's connection to write; {@code later.since(earlier)} of two
 *     readings is the latency between them
 * @param history channel history and recovery
 */
public record ServerStats(
        Map<String, Integer> sessionsByConnectionType,
        int heldConnects,
        int channels,
        int subscriptions,
        long handshakesAccepted,
        Map<String, Long> handshakesRefused,
        long messagesReceived,
        Map<String, Long> deliveriesByConnectionType,
        Map<String, Long> bytesWrittenByConnectionType,
        long messagesEncoded,
        Map<String, Long> errorsByReason,
        long slowConsumerDisconnects,
        long messagesResent,
        long sessionsDrained,
        Map<Limit, Long> refusals,
        Latency deliveryLatency,
        HistoryStats history) {

    /**
     * Channel history and recovery ({@link ServerOptions#history()}).
     *
     * @param channels gauge: channels keeping a history in this node's memory (0 where a broker keeps it)
     * @param messages gauge: publications kept in this node's memory
     * @param bytes gauge: their encoded bytes
     * @param recovered counter: channels a subscription recovered everything of
     * @param notRecovered counter: channels a subscription asked to recover that could not be ({@code recovered:
     *     false}: position too old, epoch changed, or too many missed)
     * @param messagesRecovered counter: publications delivered by recoveries
     * @param failures counter: publishes and reads the broker's history store failed
     */
    public record HistoryStats(int channels, long messages, long bytes, long recovered, long notRecovered,
            long messagesRecovered, long failures) {
    }

    /** Live sessions, all connection types. */
    public int sessions() {
        return sessionsByConnectionType.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Deliveries, all connection types. */
    public long deliveries() {
        return deliveriesByConnectionType.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Bytes written, all connection types. */
    public long bytesWritten() {
        return bytesWrittenByConnectionType.values().stream().mapToLong(Long::longValue).sum();
    }
}
