package io.weft.server.api;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Every tunable of a Weft server, with its default, in one place. Values are validated when the options are built;
 * nonsense (a negative timeout, a queue of zero) is rejected with {@link IllegalArgumentException} at start-up rather
 * than misbehaving later.
 *
 * <p>Build with {@link #builder()}; {@link #defaults()} are the values the official Bayeux clients expect. Durations
 * are in milliseconds.
 *
 * @param timeout how long a {@code /meta/connect} is held when nothing is queued (default 20000). Advised to clients.
 * @param interval how long a client should wait after a {@code /meta/connect} reply before the next one (default 0).
 *     Advised to clients.
 * @param maxInterval how long a session lives after a {@code /meta/connect} reply without the next
 *     {@code /meta/connect} arriving, on top of {@code interval} (default 10000). Advised to clients.
 * @param maxQueue how many messages a session may have queued (default 10000).
 * @param maxQueueBytes how many bytes of messages (their JSON) a session may have queued (default 524288); a message
 *     larger than that is still queued alone, when the queue is empty. Past either bound {@code queueOverflow} applies.
 * @param queueOverflow what happens when a message arrives for a session whose queue is full (default
 *     {@link OverflowPolicy#DROP_OLDEST}).
 * @param maxMessageSize the largest request body (long-polling) or text frame (websocket) accepted, in bytes (default
 *     65536). Larger input is refused without being read whole. Also the most bytes of queued messages one WebSocket
 *     frame, eventsource event or long-polling response carries (a larger message still goes, alone).
 * @param maxMessagesPerFrame the most messages written in one WebSocket frame (default 100); what remains goes in the
 *     next frame.
 * @param sweepPeriod how often unused channels are looked for and removed (default 1000).
 * @param broadcastToPublisher whether a client subscribed to a channel receives its own publishes there (default true).
 * @param metaConnectDeliveryOnly whether messages reach a client only with {@code /meta/connect} replies, on every
 *     transport (default false: WebSocket pushes them as they come, and a long-polling client's other requests are
 *     answered with what was queued for it meanwhile).
 * @param multiSessionInterval the {@code interval} advised to a browser that already has a held long-poll, with
 *     {@code multiple-clients: true} (default 2000).
 * @param maxSessionsPerBrowser how many {@code /meta/connect} requests one browser may have held at once over HTTP/1.1
 *     (default 1). Over HTTP/2 a held connect shares the browser's one connection and is not counted (as CometD's
 *     {@code http2MaxSessionsPerBrowser} defaults to no limit).
 * @param browserCookie the cookie that identifies a browser (default {@code BAYEUX_BROWSER}, path {@code /}, not
 *     Secure, SameSite Lax; always HttpOnly).
 * @param trustClientId accept a clientId without the cookie of the browser that created it (default false). Only for
 *     clients whose cookies are blocked: a clientId then becomes a bearer token.
 * @param allowedOrigins origins allowed to make cross-origin HTTP requests (CORS); {@code *} allows any; empty, the
 *     default, allows only same-origin requests.
 * @param webSocketDeflate whether the permessage-deflate WebSocket extension may be negotiated (default true).
 * @param requireHandshakePerConnection whether a new WebSocket must handshake rather than resume a session by clientId
 *     (default false).
 * @param maxLazyTimeout how long a message published to a lazy channel may wait before it is sent (default 5000);
 *     channels may set less.
 * @param maxUnacknowledged how many delivered but unacknowledged messages the acknowledgement extension keeps per
 *     session to send again (default 10000); past it the oldest are forgotten and counted.
 * @param maxUnacknowledgedBytes how many bytes of delivered but unacknowledged messages the acknowledgement extension
 *     keeps per session (default 524288); past it the oldest are forgotten and counted.
 * @param maxResendBytes how many bytes the acknowledgement extension may send again to one session, for batches its
 *     client reports lost, before the client acknowledges anything more (default 1048576): each byte the client
 *     acknowledges earns one back, up to this. A lost batch past it is forgotten and counted, so a client that
 *     repeats an old acknowledgement cannot make the server send its backlog again and again.
 * @param maxChannelLength the longest channel name a client may use, in characters (default 255).
 * @param maxChannelDepth the most segments a channel name a client uses may have (default 32).
 * @param maxChannels how many channels may exist before client subscriptions that would create more are refused
 *     (default 200000). Channels server code creates count, but are never refused.
 * @param maxChannelsPerAddress how many channels the subscriptions of one remote address (all its sessions) may have
 *     created and not yet seen removed (default 20000), so that one address cannot fill {@code maxChannels} for
 *     everyone.
 * @param clientRootWildcards whether clients may subscribe to {@code /*} and {@code /**}, which receive every
 *     broadcast on the server (default false). Server code may always.
 * @param maxSessions how many sessions may be live at once; handshakes past it are refused (default 100000).
 * @param maxSessionsPerAddress how many live sessions one remote address may hold (an IPv6 address counts by its
 *     /64 prefix) (default 1000). Behind a reverse proxy every client has the proxy's address: raise it there.
 * @param maxLiveSessionsPerBrowser how many live sessions one browser (one browser cookie) may hold (default 100).
 * @param maxSubscriptionsPerSession how many channels one client session may be subscribed to, and the most
 *     channels one {@code /meta/subscribe} or {@code /meta/unsubscribe} may name (default 256).
 * @param maxMessagesPerBatch the most messages in one request body, JSONP request or WebSocket frame (default 500).
 * @param maxJsonDepth the deepest nesting of JSON arrays and objects accepted in input (default 64).
 * @param maxPendingFrames how many replies may wait to be written on one WebSocket, and, where the socket cannot stop
 *     reading (the Jakarta API), how many of a client's batches may wait for their replies to be written; past either
 *     the socket is closed with 1008 and counted as {@link Limit#PENDING_FRAMES} (default 16). On embedded Jetty a
 *     client that sends without reading stalls itself instead. Pongs do not count: a client that pings without
 *     reading stalls only itself. The same bound applies to an {@code eventsource} stream's replies.
 * @param eventSourceHeartbeat how long an {@code eventsource} stream may go without a write before the server writes
 *     a comment line on it (default 15000), so that proxies which cut idle connections keep it open.
 * @param maxConnectionsPerAddress how many connections one remote address may have open at once, where the mount can
 *     count them (embedded Jetty); past it a new connection is closed at once and counted (default 2000).
 * @param history which broadcast channels keep a history of their publications, and how much (none by default):
 *     the first {@link HistoryRule} that covers a channel decides; as text, rules separated by {@code ;}
 *     ({@code /chat/**:size=1000,ttl=300s,bytes=1m}). A channel's own {@code ServerChannel.setHistory} comes first.
 * @param maxHistoryChannels how many channels may keep a history in this node's memory at once (default 10000); a
 *     client publish that would start one more is refused and counted. With a broker that keeps history (Redis),
 *     the broker's store holds it instead, each channel's expiring after its rule's {@code ttl}.
 * @param maxHistoryChannelsPerAddress how many of those the publishes of one remote address may have started
 *     (default 1000), so that one address cannot fill {@code maxHistoryChannels} for everyone.
 * @param maxRecoveredMessages the most publications one channel's recovery delivers (default 1000): a client that
 *     missed more is told it was not recovered (docs/protocol.md, "History and recovery").
 * @param maxRecoverChannels the most channel positions one {@code /meta/subscribe} may carry in {@code ext.recover}
 *     (default 64); past it the subscription is refused.
 * @param requestHeadTimeout how long an HTTP/1.1 request head (request line and headers) may take to arrive whole,
 *     from its first byte, where the mount can see it (embedded Jetty) (default 10000); past it the connection is
 *     closed and counted. The connection's idle timeout restarts with every byte, so it alone does not stop a head
 *     trickled a byte at a time.
 */
public record ServerOptions(
        long timeout,
        long interval,
        long maxInterval,
        int maxQueue,
        int maxQueueBytes,
        OverflowPolicy queueOverflow,
        int maxMessageSize,
        int maxMessagesPerFrame,
        long sweepPeriod,
        boolean broadcastToPublisher,
        boolean metaConnectDeliveryOnly,
        long multiSessionInterval,
        int maxSessionsPerBrowser,
        BrowserCookie browserCookie,
        boolean trustClientId,
        List<String> allowedOrigins,
        boolean webSocketDeflate,
        boolean requireHandshakePerConnection,
        long maxLazyTimeout,
        int maxUnacknowledged,
        int maxUnacknowledgedBytes,
        int maxResendBytes,
        int maxChannelLength,
        int maxChannelDepth,
        int maxChannels,
        int maxChannelsPerAddress,
        boolean clientRootWildcards,
        int maxSessions,
        int maxSessionsPerAddress,
        int maxLiveSessionsPerBrowser,
        int maxSubscriptionsPerSession,
        int maxMessagesPerBatch,
        int maxJsonDepth,
        int maxPendingFrames,
        long eventSourceHeartbeat,
        int maxConnectionsPerAddress,
        long requestHeadTimeout,
        List<HistoryRule> history,
        int maxHistoryChannels,
        int maxHistoryChannelsPerAddress,
        int maxRecoveredMessages,
        int maxRecoverChannels) {

    /** What happens to a message that arrives for a session whose queue is full. */
    public enum OverflowPolicy {
        /** Drop the oldest queued message to make room, and count it. */
        DROP_OLDEST,
        /** Disconnect the session (a slow consumer), telling the client why. */
        DISCONNECT
    }

    /**
     * The browser cookie. Always HttpOnly.
     *
     * @param name cookie name (default {@code BAYEUX_BROWSER})
     * @param path cookie path (default {@code /})
     * @param secure whether the cookie is sent over HTTPS only (default false)
     * @param sameSite {@code Strict}, {@code Lax} (default) or {@code None} (which browsers accept only with secure)
     */
    public record BrowserCookie(String name, String path, boolean secure, String sameSite) {
        public static final BrowserCookie DEFAULT = new BrowserCookie("BAYEUX_BROWSER", "/", false, "Lax");

        public BrowserCookie {
            if (name == null || name.isEmpty() || !name.chars().allMatch(BrowserCookie::isTokenChar)) {
                throw new IllegalArgumentException("browserCookie.name must be a non-empty cookie token: " + name);
            }
            if (path == null || !path.startsWith("/")) {
                throw new IllegalArgumentException("browserCookie.path must start with '/': " + path);
            }
            if (!List.of("Strict", "Lax", "None").contains(sameSite)) {
                throw new IllegalArgumentException("browserCookie.sameSite must be Strict, Lax or None: " + sameSite);
            }
        }

        private static boolean isTokenChar(int c) {
            return c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0;
        }
    }

    public ServerOptions {
        requireAtLeast("timeout", timeout, 0);
        requireAtLeast("interval", interval, 0);
        requireAtLeast("maxInterval", maxInterval, 1);
        requireAtLeast("maxQueue", maxQueue, 1);
        requireAtLeast("maxQueueBytes", maxQueueBytes, 1024);
        Objects.requireNonNull(queueOverflow, "queueOverflow");
        requireAtLeast("maxMessageSize", maxMessageSize, 1024);
        requireAtLeast("maxMessagesPerFrame", maxMessagesPerFrame, 1);
        requireAtLeast("sweepPeriod", sweepPeriod, 1);
        requireAtLeast("multiSessionInterval", multiSessionInterval, 0);
        requireAtLeast("maxSessionsPerBrowser", maxSessionsPerBrowser, 1);
        Objects.requireNonNull(browserCookie, "browserCookie");
        requireAtLeast("maxLazyTimeout", maxLazyTimeout, 0);
        requireAtLeast("maxUnacknowledged", maxUnacknowledged, 1);
        requireAtLeast("maxUnacknowledgedBytes", maxUnacknowledgedBytes, 1024);
        requireAtLeast("maxResendBytes", maxResendBytes, 0);
        requireAtLeast("maxChannelLength", maxChannelLength, 2);
        requireAtLeast("maxChannelDepth", maxChannelDepth, 1);
        requireAtLeast("maxChannels", maxChannels, 1);
        requireAtLeast("maxChannelsPerAddress", maxChannelsPerAddress, 1);
        requireAtLeast("maxSessions", maxSessions, 1);
        requireAtLeast("maxSessionsPerAddress", maxSessionsPerAddress, 1);
        requireAtLeast("maxLiveSessionsPerBrowser", maxLiveSessionsPerBrowser, 1);
        requireAtLeast("maxSubscriptionsPerSession", maxSubscriptionsPerSession, 1);
        requireAtLeast("maxMessagesPerBatch", maxMessagesPerBatch, 1);
        requireAtLeast("maxJsonDepth", maxJsonDepth, 2);
        requireAtLeast("maxPendingFrames", maxPendingFrames, 2);
        requireAtLeast("eventSourceHeartbeat", eventSourceHeartbeat, 100);
        requireAtLeast("maxConnectionsPerAddress", maxConnectionsPerAddress, 1);
        requireAtLeast("requestHeadTimeout", requestHeadTimeout, 1);
        history = List.copyOf(Objects.requireNonNull(history, "history"));
        requireAtLeast("maxHistoryChannels", maxHistoryChannels, 1);
        requireAtLeast("maxHistoryChannelsPerAddress", maxHistoryChannelsPerAddress, 1);
        requireAtLeast("maxRecoveredMessages", maxRecoveredMessages, 1);
        requireAtLeast("maxRecoverChannels", maxRecoverChannels, 1);
        allowedOrigins = List.copyOf(Objects.requireNonNull(allowedOrigins, "allowedOrigins"));
        for (String origin : allowedOrigins) {
            if (!origin.equals("*") && !origin.matches("[a-zA-Z][a-zA-Z0-9+.-]*://[^/\\s]+")) {
                throw new IllegalArgumentException("allowedOrigins: not an origin (scheme://host[:port]) or '*': " + origin);
            }
        }
    }

    private static long parseLong(String name, String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException x) {
            throw new IllegalArgumentException(name + " must be a whole number, was '" + text + "'");
        }
    }

    private static int parseInt(String name, String text) {
        long value = parseLong(name, text);
        if (value != (int) value) {
            throw new IllegalArgumentException(name + " must be at most " + Integer.MAX_VALUE + ", was " + text);
        }
        return (int) value;
    }

    private static boolean parseBoolean(String name, String text) {
        return switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(name + " must be true or false, was '" + text + "'");
        };
    }

    private static OverflowPolicy parsePolicy(String text) {
        try {
            return OverflowPolicy.valueOf(text);
        } catch (IllegalArgumentException x) {
            throw new IllegalArgumentException("queueOverflow must be one of "
                    + Arrays.toString(OverflowPolicy.values()) + ", was '" + text + "'");
        }
    }

    private static void requireAtLeast(String name, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be at least " + min + ", was " + value);
        }
    }

    /** The defaults, as documented on each field. */
    public static ServerOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Whether {@code origin} (an {@code Origin} header value) may make cross-origin requests. */
    public boolean isOriginAllowed(String origin) {
        return origin != null && (allowedOrigins.contains("*") || allowedOrigins.contains(origin));
    }

    /** Builds {@link ServerOptions}; every setter's default is documented on the record component. */
    public static final class Builder {
        private long timeout = 20_000;
        private long interval = 0;
        private long maxInterval = 10_000;
        private int maxQueue = 10_000;
        private int maxQueueBytes = 512 * 1024;
        private OverflowPolicy queueOverflow = OverflowPolicy.DROP_OLDEST;
        private int maxMessageSize = 65_536;
        private int maxMessagesPerFrame = 100;
        private long sweepPeriod = 1_000;
        private boolean broadcastToPublisher = true;
        private boolean metaConnectDeliveryOnly = false;
        private long multiSessionInterval = 2_000;
        private int maxSessionsPerBrowser = 1;
        private BrowserCookie browserCookie = BrowserCookie.DEFAULT;
        private boolean trustClientId = false;
        private List<String> allowedOrigins = List.of();
        private boolean webSocketDeflate = true;
        private boolean requireHandshakePerConnection = false;
        private long maxLazyTimeout = 5_000;
        private int maxUnacknowledged = 10_000;
        private int maxUnacknowledgedBytes = 512 * 1024;
        private int maxResendBytes = 1024 * 1024;
        private int maxChannelLength = 255;
        private int maxChannelDepth = 32;
        private int maxChannels = 200_000;
        private int maxChannelsPerAddress = 20_000;
        private boolean clientRootWildcards = false;
        private int maxSessions = 100_000;
        private int maxSessionsPerAddress = 1_000;
        private int maxLiveSessionsPerBrowser = 100;
        private int maxSubscriptionsPerSession = 256;
        private int maxMessagesPerBatch = 500;
        private int maxJsonDepth = 64;
        private int maxPendingFrames = 16;
        private long eventSourceHeartbeat = 15_000;
        private int maxConnectionsPerAddress = 2_000;
        private long requestHeadTimeout = 10_000;
        private List<HistoryRule> history = List.of();
        private int maxHistoryChannels = 10_000;
        private int maxHistoryChannelsPerAddress = 1_000;
        private int maxRecoveredMessages = 1_000;
        private int maxRecoverChannels = 64;

        private Builder() {
        }

        private Builder(ServerOptions o) {
            timeout = o.timeout;
            interval = o.interval;
            maxInterval = o.maxInterval;
            maxQueue = o.maxQueue;
            maxQueueBytes = o.maxQueueBytes;
            queueOverflow = o.queueOverflow;
            maxMessageSize = o.maxMessageSize;
            maxMessagesPerFrame = o.maxMessagesPerFrame;
            sweepPeriod = o.sweepPeriod;
            broadcastToPublisher = o.broadcastToPublisher;
            metaConnectDeliveryOnly = o.metaConnectDeliveryOnly;
            multiSessionInterval = o.multiSessionInterval;
            maxSessionsPerBrowser = o.maxSessionsPerBrowser;
            browserCookie = o.browserCookie;
            trustClientId = o.trustClientId;
            allowedOrigins = o.allowedOrigins;
            webSocketDeflate = o.webSocketDeflate;
            requireHandshakePerConnection = o.requireHandshakePerConnection;
            maxLazyTimeout = o.maxLazyTimeout;
            maxUnacknowledged = o.maxUnacknowledged;
            maxUnacknowledgedBytes = o.maxUnacknowledgedBytes;
            maxResendBytes = o.maxResendBytes;
            maxChannelLength = o.maxChannelLength;
            maxChannelDepth = o.maxChannelDepth;
            maxChannels = o.maxChannels;
            maxChannelsPerAddress = o.maxChannelsPerAddress;
            clientRootWildcards = o.clientRootWildcards;
            maxSessions = o.maxSessions;
            maxSessionsPerAddress = o.maxSessionsPerAddress;
            maxLiveSessionsPerBrowser = o.maxLiveSessionsPerBrowser;
            maxSubscriptionsPerSession = o.maxSubscriptionsPerSession;
            maxMessagesPerBatch = o.maxMessagesPerBatch;
            maxJsonDepth = o.maxJsonDepth;
            maxPendingFrames = o.maxPendingFrames;
            eventSourceHeartbeat = o.eventSourceHeartbeat;
            maxConnectionsPerAddress = o.maxConnectionsPerAddress;
            requestHeadTimeout = o.requestHeadTimeout;
            history = o.history;
            maxHistoryChannels = o.maxHistoryChannels;
            maxHistoryChannelsPerAddress = o.maxHistoryChannelsPerAddress;
            maxRecoveredMessages = o.maxRecoveredMessages;
            maxRecoverChannels = o.maxRecoverChannels;
        }

        public Builder history(List<HistoryRule> rules) {
            this.history = rules;
            return this;
        }

        public Builder maxHistoryChannels(int channels) {
            this.maxHistoryChannels = channels;
            return this;
        }

        public Builder maxHistoryChannelsPerAddress(int channels) {
            this.maxHistoryChannelsPerAddress = channels;
            return this;
        }

        public Builder maxRecoveredMessages(int messages) {
            this.maxRecoveredMessages = messages;
            return this;
        }

        public Builder maxRecoverChannels(int channels) {
            this.maxRecoverChannels = channels;
            return this;
        }

        public Builder timeout(long millis) {
            this.timeout = millis;
            return this;
        }

        public Builder interval(long millis) {
            this.interval = millis;
            return this;
        }

        public Builder maxInterval(long millis) {
            this.maxInterval = millis;
            return this;
        }

        public Builder maxQueue(int messages) {
            this.maxQueue = messages;
            return this;
        }

        public Builder maxQueueBytes(int bytes) {
            this.maxQueueBytes = bytes;
            return this;
        }

        public Builder queueOverflow(OverflowPolicy policy) {
            this.queueOverflow = policy;
            return this;
        }

        public Builder maxMessageSize(int bytes) {
            this.maxMessageSize = bytes;
            return this;
        }

        public Builder maxMessagesPerFrame(int messages) {
            this.maxMessagesPerFrame = messages;
            return this;
        }

        public Builder sweepPeriod(long millis) {
            this.sweepPeriod = millis;
            return this;
        }

        public Builder broadcastToPublisher(boolean broadcast) {
            this.broadcastToPublisher = broadcast;
            return this;
        }

        public Builder metaConnectDeliveryOnly(boolean deliveryOnly) {
            this.metaConnectDeliveryOnly = deliveryOnly;
            return this;
        }

        public Builder multiSessionInterval(long millis) {
            this.multiSessionInterval = millis;
            return this;
        }

        public Builder maxSessionsPerBrowser(int sessions) {
            this.maxSessionsPerBrowser = sessions;
            return this;
        }

        public Builder browserCookie(BrowserCookie cookie) {
            this.browserCookie = cookie;
            return this;
        }

        public Builder trustClientId(boolean trust) {
            this.trustClientId = trust;
            return this;
        }

        public Builder allowedOrigins(List<String> origins) {
            this.allowedOrigins = origins;
            return this;
        }

        public Builder webSocketDeflate(boolean deflate) {
            this.webSocketDeflate = deflate;
            return this;
        }

        public Builder requireHandshakePerConnection(boolean require) {
            this.requireHandshakePerConnection = require;
            return this;
        }

        public Builder maxLazyTimeout(long millis) {
            this.maxLazyTimeout = millis;
            return this;
        }

        public Builder maxUnacknowledged(int messages) {
            this.maxUnacknowledged = messages;
            return this;
        }

        public Builder maxUnacknowledgedBytes(int bytes) {
            this.maxUnacknowledgedBytes = bytes;
            return this;
        }

        public Builder maxResendBytes(int bytes) {
            this.maxResendBytes = bytes;
            return this;
        }

        public Builder maxChannelLength(int characters) {
            this.maxChannelLength = characters;
            return this;
        }

        public Builder maxChannelDepth(int segments) {
            this.maxChannelDepth = segments;
            return this;
        }

        public Builder maxChannels(int channels) {
            this.maxChannels = channels;
            return this;
        }

        public Builder maxChannelsPerAddress(int channels) {
            this.maxChannelsPerAddress = channels;
            return this;
        }

        public Builder clientRootWildcards(boolean allow) {
            this.clientRootWildcards = allow;
            return this;
        }

        public Builder maxSessions(int sessions) {
            this.maxSessions = sessions;
            return this;
        }

        public Builder maxSessionsPerAddress(int sessions) {
            this.maxSessionsPerAddress = sessions;
            return this;
        }

        public Builder maxLiveSessionsPerBrowser(int sessions) {
            this.maxLiveSessionsPerBrowser = sessions;
            return this;
        }

        public Builder maxSubscriptionsPerSession(int channels) {
            this.maxSubscriptionsPerSession = channels;
            return this;
        }

        public Builder maxMessagesPerBatch(int messages) {
            this.maxMessagesPerBatch = messages;
            return this;
        }

        public Builder maxJsonDepth(int depth) {
            this.maxJsonDepth = depth;
            return this;
        }

        public Builder maxPendingFrames(int frames) {
            this.maxPendingFrames = frames;
            return this;
        }

        public Builder eventSourceHeartbeat(long millis) {
            this.eventSourceHeartbeat = millis;
            return this;
        }

        public Builder maxConnectionsPerAddress(int connections) {
            this.maxConnectionsPerAddress = connections;
            return this;
        }

        public Builder requestHeadTimeout(long millis) {
            this.requestHeadTimeout = millis;
            return this;
        }

        /**
         * Sets one option from text, by its name, as configuration files and Servlet init-parameters give it: numbers
         * in decimal, booleans as {@code true} or {@code false}, {@code queueOverflow} as the policy's name,
         * {@code allowedOrigins} comma-separated, and the browser cookie's parts as {@code browserCookie.name},
         * {@code browserCookie.path}, {@code browserCookie.secure} and {@code browserCookie.sameSite}.
         *
         * @throws IllegalArgumentException naming the option, if there is no option of that name or the value is not
         *     one it takes (values in range are checked by {@link #build()})
         */
        public Builder set(String name, String value) {
            Objects.requireNonNull(name, "name");
            String text = Objects.requireNonNull(value, "value").strip();
            switch (name) {
                case "timeout" -> timeout(parseLong(name, text));
                case "interval" -> interval(parseLong(name, text));
                case "maxInterval" -> maxInterval(parseLong(name, text));
                case "maxQueue" -> maxQueue(parseInt(name, text));
                case "maxQueueBytes" -> maxQueueBytes(parseInt(name, text));
                case "queueOverflow" -> queueOverflow(parsePolicy(text));
                case "maxMessageSize" -> maxMessageSize(parseInt(name, text));
                case "maxMessagesPerFrame" -> maxMessagesPerFrame(parseInt(name, text));
                case "sweepPeriod" -> sweepPeriod(parseLong(name, text));
                case "broadcastToPublisher" -> broadcastToPublisher(parseBoolean(name, text));
                case "metaConnectDeliveryOnly" -> metaConnectDeliveryOnly(parseBoolean(name, text));
                case "multiSessionInterval" -> multiSessionInterval(parseLong(name, text));
                case "maxSessionsPerBrowser" -> maxSessionsPerBrowser(parseInt(name, text));
                case "browserCookie.name" -> browserCookie(new BrowserCookie(text, browserCookie.path(),
                        browserCookie.secure(), browserCookie.sameSite()));
                case "browserCookie.path" -> browserCookie(new BrowserCookie(browserCookie.name(), text,
                        browserCookie.secure(), browserCookie.sameSite()));
                case "browserCookie.secure" -> browserCookie(new BrowserCookie(browserCookie.name(),
                        browserCookie.path(), parseBoolean(name, text), browserCookie.sameSite()));
                case "browserCookie.sameSite" -> browserCookie(new BrowserCookie(browserCookie.name(),
                        browserCookie.path(), browserCookie.secure(), text));
                case "trustClientId" -> trustClientId(parseBoolean(name, text));
                case "allowedOrigins" -> allowedOrigins(text.isEmpty() ? List.of()
                        : Arrays.stream(text.split(",")).map(String::strip).filter(o -> !o.isEmpty()).toList());
                case "webSocketDeflate" -> webSocketDeflate(parseBoolean(name, text));
                case "requireHandshakePerConnection" -> requireHandshakePerConnection(parseBoolean(name, text));
                case "maxLazyTimeout" -> maxLazyTimeout(parseLong(name, text));
                case "maxUnacknowledged" -> maxUnacknowledged(parseInt(name, text));
                case "maxUnacknowledgedBytes" -> maxUnacknowledgedBytes(parseInt(name, text));
                case "maxResendBytes" -> maxResendBytes(parseInt(name, text));
                case "maxChannelLength" -> maxChannelLength(parseInt(name, text));
                case "maxChannelDepth" -> maxChannelDepth(parseInt(name, text));
                case "maxChannels" -> maxChannels(parseInt(name, text));
                case "maxChannelsPerAddress" -> maxChannelsPerAddress(parseInt(name, text));
                case "clientRootWildcards" -> clientRootWildcards(parseBoolean(name, text));
                case "maxSessions" -> maxSessions(parseInt(name, text));
                case "maxSessionsPerAddress" -> maxSessionsPerAddress(parseInt(name, text));
                case "maxLiveSessionsPerBrowser" -> maxLiveSessionsPerBrowser(parseInt(name, text));
                case "maxSubscriptionsPerSession" -> maxSubscriptionsPerSession(parseInt(name, text));
                case "maxMessagesPerBatch" -> maxMessagesPerBatch(parseInt(name, text));
                case "maxJsonDepth" -> maxJsonDepth(parseInt(name, text));
                case "maxPendingFrames" -> maxPendingFrames(parseInt(name, text));
                case "eventSourceHeartbeat" -> eventSourceHeartbeat(parseLong(name, text));
                case "maxConnectionsPerAddress" -> maxConnectionsPerAddress(parseInt(name, text));
                case "requestHeadTimeout" -> requestHeadTimeout(parseLong(name, text));
                case "history" -> history(text.isEmpty() ? List.of()
                        : Arrays.stream(text.split(";")).map(String::strip).filter(r -> !r.isEmpty())
                                .map(HistoryRule::parse).toList());
                case "maxHistoryChannels" -> maxHistoryChannels(parseInt(name, text));
                case "maxHistoryChannelsPerAddress" -> maxHistoryChannelsPerAddress(parseInt(name, text));
                case "maxRecoveredMessages" -> maxRecoveredMessages(parseInt(name, text));
                case "maxRecoverChannels" -> maxRecoverChannels(parseInt(name, text));
                default -> throw new IllegalArgumentException("no server option named '" + name + "'");
            }
            return this;
        }

        /** @throws IllegalArgumentException naming the first option that is out of range */
        public ServerOptions build() {
            return new ServerOptions(timeout, interval, maxInterval, maxQueue, maxQueueBytes, queueOverflow,
                    maxMessageSize, maxMessagesPerFrame, sweepPeriod, broadcastToPublisher, metaConnectDeliveryOnly,
                    multiSessionInterval, maxSessionsPerBrowser, browserCookie, trustClientId, allowedOrigins,
                    webSocketDeflate, requireHandshakePerConnection, maxLazyTimeout, maxUnacknowledged,
                    maxUnacknowledgedBytes, maxResendBytes, maxChannelLength, maxChannelDepth, maxChannels,
                    maxChannelsPerAddress, clientRootWildcards, maxSessions, maxSessionsPerAddress,
                    maxLiveSessionsPerBrowser, maxSubscriptionsPerSession, maxMessagesPerBatch, maxJsonDepth,
                    maxPendingFrames, eventSourceHeartbeat, maxConnectionsPerAddress, requestHeadTimeout, history,
                    maxHistoryChannels, maxHistoryChannelsPerAddress, maxRecoveredMessages, maxRecoverChannels);
        }
    }
}
