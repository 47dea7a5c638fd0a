package io.weft.server.api;

import io.weft.bayeux.BayeuxError;

/**
 * The bounds on what a client can make the server hold, each set by the {@link ServerOptions} component it names. A
 * request past a bound is refused (a Bayeux error {@code 429:<option>:limit_exceeded}, an HTTP 4xx, or a WebSocket
 * close, as each limit's documentation says) and counted: {@link BayeuxServer#getRefusals()}.
 */
public enum Limit {
    /** A channel name longer than {@link ServerOptions#maxChannelLength()}. */
    CHANNEL_LENGTH("maxChannelLength"),
    /** A channel name with more segments than {@link ServerOptions#maxChannelDepth()}. */
    CHANNEL_DEPTH("maxChannelDepth"),
    /** A subscription that would create channels past {@link ServerOptions#maxChannels()}. */
    CHANNELS("maxChannels"),
    /**
     * A subscription that would make one address's subscriptions have created more than
     * {@link ServerOptions#maxChannelsPerAddress()} channels.
     */
    CHANNELS_PER_ADDRESS("maxChannelsPerAddress"),
    /** A client subscription to {@code /*} or {@code /**} while {@link ServerOptions#clientRootWildcards()} is off. */
    ROOT_WILDCARD("clientRootWildcards"),
    /** A handshake past {@link ServerOptions#maxSessions()}. */
    SESSIONS("maxSessions"),
    /** A handshake past {@link ServerOptions#maxSessionsPerAddress()}. */
    SESSIONS_PER_ADDRESS("maxSessionsPerAddress"),
    /** A handshake past {@link ServerOptions#maxLiveSessionsPerBrowser()}. */
    SESSIONS_PER_BROWSER("maxLiveSessionsPerBrowser"),
    /** A subscription past {@link ServerOptions#maxSubscriptionsPerSession()}, or a message naming more channels. */
    SUBSCRIPTIONS("maxSubscriptionsPerSession"),
    /** A request body or frame with more than {@link ServerOptions#maxMessagesPerBatch()} messages. */
    MESSAGES_PER_BATCH("maxMessagesPerBatch"),
    /** JSON nested deeper than {@link ServerOptions#maxJsonDepth()}. */
    JSON_DEPTH("maxJsonDepth"),
    /** A request body or frame larger than {@link ServerOptions#maxMessageSize()}. */
    MESSAGE_SIZE("maxMessageSize"),
    /** A message that found its session's queue full ({@link ServerOptions#maxQueue()}): dropped, or disconnected. */
    QUEUE("maxQueue"),
    /**
     * A message that found its session's queue holding {@link ServerOptions#maxQueueBytes()} bytes: the oldest
     * dropped to make room (each counted), or the session disconnected.
     */
    QUEUE_BYTES("maxQueueBytes"),
    /** An unacknowledged message forgotten past {@link ServerOptions#maxUnacknowledged()}. */
    UNACKNOWLEDGED("maxUnacknowledged"),
    /** An unacknowledged message forgotten past {@link ServerOptions#maxUnacknowledgedBytes()}. */
    UNACKNOWLEDGED_BYTES("maxUnacknowledgedBytes"),
    /**
     * A message its client reported lost, forgotten instead of sent again: the session had been sent again
     * {@link ServerOptions#maxResendBytes()} bytes without acknowledging as much.
     */
    RESENDS("maxResendBytes"),
    /**
     * A WebSocket closed with 1008 because more than {@link ServerOptions#maxPendingFrames()} replies waited to be
     * written, or (on the Jakarta mount) more than that many of its client's batches waited for their replies: a
     * client that sends without reading.
     */
    PENDING_FRAMES("maxPendingFrames"),
    /** A connection closed as it opened: its address had {@link ServerOptions#maxConnectionsPerAddress()} open. */
    CONNECTIONS_PER_ADDRESS("maxConnectionsPerAddress"),
    /** A connection closed because a request head took longer than {@link ServerOptions#requestHeadTimeout()}. */
    REQUEST_HEAD("requestHeadTimeout"),
    /** A client publish that would start a channel history past {@link ServerOptions#maxHistoryChannels()}. */
    HISTORY_CHANNELS("maxHistoryChannels"),
    /**
     * A client publish (or subscription asking for a position) that would make one address have started more than
     * {@link ServerOptions#maxHistoryChannelsPerAddress()} channel histories.
     */
    HISTORY_CHANNELS_PER_ADDRESS("maxHistoryChannelsPerAddress"),
    /** A subscription carrying more than {@link ServerOptions#maxRecoverChannels()} positions in {@code ext.recover}. */
    RECOVER_CHANNELS("maxRecoverChannels");

    private final String option;

    Limit(String option) {
        this.option = option;
    }

    /** The name of the {@link ServerOptions} component that sets this limit. */
    public String option() {
        return option;
    }

    /** The error a request refused at this limit is answered with: {@code 429:<option>:limit_exceeded}. */
    public BayeuxError error() {
        return BayeuxError.LIMIT_EXCEEDED.withReason(option);
    }
}
