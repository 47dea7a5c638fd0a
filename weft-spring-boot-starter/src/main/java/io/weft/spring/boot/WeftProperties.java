package io.weft.spring.boot;

import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerOptions.OverflowPolicy;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DataSizeUnit;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.util.unit.DataSize;
import org.springframework.util.unit.DataUnit;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * The {@code weft.*} properties: where Bayeux is served ({@code weft.path}) and every {@link ServerOptions} option, by
 * the option's name ({@code weft.max-interval} or {@code weft.maxInterval} for {@code maxInterval}, the cookie's parts
 * as {@code weft.browser-cookie.name} and so on). Durations take Spring's forms ({@code 25s}, {@code 500ms}; a bare
 * number is milliseconds, as in {@link ServerOptions}), sizes Spring's {@code 64KB} or a number of bytes.
 *
 * <p>Start-up fails on a property this class does not have (a misspelt name under {@code weft.}) and on a value an
 * option does not take, naming the property: the options are checked here, one by one, as {@link ServerOptions} checks
 * them when built.
 *
 * <p>The defaults are {@link ServerOptions#defaults()}. An application that creates its own {@code BayeuxServer} bean
 * may start from these properties with {@link #toServerOptions()}.
 */
@ConfigurationProperties(prefix = WeftProperties.PREFIX, ignoreUnknownFields = false)
public class WeftProperties implements Validator {
    /** The prefix of every property of this class. */
    public static final String PREFIX = "weft";

    /**
     * Where Bayeux is served, relative to the application's context path: websocket upgrades and long-polling requests
     * both go to this URL, and clients are given it.
     */
    private String path = "/cometd";

    /**
     * How long the application's stop drains the Bayeux server before the web server's graceful shutdown: health DOWN
     * at once, each client told to handshake again (through the load balancer, on another node) at a moment spread
     * over the window, then the server closed. 0 (the default) closes it at once. Keep it below
     * {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s by default).
     */
    @DurationUnit(ChronoUnit.MILLIS)
    private Duration drain = Duration.ZERO;

    /** How long a /meta/connect is held when nothing is queued for the client; advised to clients. */
    @DurationUnit(ChronoUnit.MILLIS)
    private Duration timeout = Duration.ofSeconds(20);

    /** How long a client waits after a /meta/connect reply before sending the next; advised to clients. */
    @DurationUnit(ChronoUnit.MILLIS)
    private Duration interval = Duration.ZERO;

    /** How long a session lives after a /meta/connect reply (and the interval) without the next /meta/connect. */
    @DurationUnit(ChronoUnit.MILLIS)
    private Duration maxInterval = Duration.ofSeconds(10);

    /** How many messages may wait in one session's queue. */
    private int maxQueue = 10_000;

    /** How many bytes of messages may wait in one session's queue (a larger message still goes alone). */
    @DataSizeUnit(DataUnit.BYTES)
    private DataSize maxQueueBytes = DataSize.ofKilobytes(512);

    /** What happens when a message arrives for a session whose queue is full. */
    private OverflowPolicy queueOverflow = OverflowPolicy.DROP_OLDEST;

    /** The largest request body (long-polling) or text frame (websocket) accepted; larger input is refused unread. */
    @DataSizeUnit(DataUnit.BYTES)
    private DataSize maxMessageSize = DataSize.ofKilobytes(64);

    /** The most messages written in one websocket frame; the rest go in the next. */
    private int maxMessagesPerFrame = 100;

    /** How often unused channels are looked for; one unused for three sweeps in a row is removed. */
    @DurationUnit(ChronoUnit.MILLIS)
    private Duration sweepPeriod = Duration.ofSeconds(1);

    /** Whether a client subscribed to a channel receives its own publishes there. */
    private boolean broadcastToPublisher = true;

    /** Whether messages reach clients only with /meta/connect replies, websocket included. */
    private boolean metaConnectDeliveryOnly = false;

    /** The interval advised (with multiple-clients) to a browser whose held polls are all taken. */
    @DurationUnit(ChronoUnit.MILLIS)
    private Duration multiSessionInterval = Duration.ofSeconds(2);

    /** How many /meta/connect requests one browser may have held at once over HTTP/1.1. */
    private int maxSessionsPerBrowser = 1;

    /** The cookie that identifies a browser (always HttpOnly). */
    private final BrowserCookie browserCookie = new BrowserCookie();

    /** Whether to accept a clientId without the cookie of the browser that created it (it becomes a bearer token). */
    private boolean trustClientId = false;

    /**
     * Origins (scheme://host[:port]) allowed to make cross-origin requests and to open websockets, or '*' for any;
     * empty allows the page's own origin only.
     */
    private List<String> allowedOrigins = new ArrayList<>();

    /** Whether the permessage-deflate websocket extension may be negotiated. */
    private boolean webSocketDeflate = true;

    /** Whether a new websocket must handshake rather than resume a session by its clientId. */
    private boolean requireHandshakePerConnection = false;

    /** The longest a message published to a lazy channel may wait before it is sent. */
    @DurationUnit(ChronoUnit.MILLIS)
    private Duration maxLazyTimeout = Duration.ofSeconds(5);

    /** How many delivered but unacknowledged messages the ack extension keeps per session to send again. */
    private int maxUnacknowledged = 10_000;

    /** How many bytes of delivered but unacknowledged messages the ack extension keeps per session. */
    @DataSizeUnit(DataUnit.BYTES)
    private DataSize maxUnacknowledgedBytes = DataSize.ofKilobytes(512);

    /**
     * How much the ack extension may send again to one session, for batches reported lost, before the client
     * acknowledges as much; each byte acknowledged earns one back.
     */
    @DataSizeUnit(DataUnit.BYTES)
    private DataSize maxResendBytes = DataSize.ofMegabytes(1);

    /** The longest channel name a client may use, in characters. */
    private int maxChannelLength = 255;

    /** The most segments in a channel name a client uses. */
    private int maxChannelDepth = 32;

    /** How many channels may exist before client subscriptions that would create more are refused. */
    private int maxChannels = 200_000;

    /** How many channels the subscriptions of one remote address may have created: its share of max-channels. */
    private int maxChannelsPerAddress = 20_000;

    /** Whether clients may subscribe to the root wildcards '/*' and '/**', which receive every broadcast. */
    private boolean clientRootWildcards = false;

    /** How many sessions may be live at once; handshakes past it are refused. */
    private int maxSessions = 100_000;

    /** How many live sessions one remote address (an IPv6 address by its /64 prefix) may hold. */
    private int maxSessionsPerAddress = 1_000;

    /** How many live sessions one browser (one browser cookie) may hold. */
    private int maxLiveSessionsPerBrowser = 100;

    /** How many channels one client session may be subscribed to, and may name in one (un)subscribe. */
    private int maxSubscriptionsPerSession = 256;

    /** The most messages in one request body or websocket frame. */
    private int maxMessagesPerBatch = 500;

    /** The deepest nesting of JSON arrays and objects accepted from clients. */
    private int maxJsonDepth = 64;

    /** How many replies may wait to be written on one websocket (or eventsource stream) before it is closed. */
    private int maxPendingFrames = 16;

    /** How long an eventsource stream may go without a write before a comment line is written to keep it open. */
    @DurationUnit(ChronoUnit.MILLIS)
    private Duration eventSourceHeartbeat = Duration.ofSeconds(15);

    /**
     * How many connections one remote address may have open, where the mount counts them (embedded Jetty; a Servlet
     * container such as Boot's Tomcat bounds its connections itself).
     */
    private int maxConnectionsPerAddress = 2_000;

    /**
     * How long an HTTP/1.1 request head may take to arrive whole, where the mount sees it (embedded Jetty; in Boot's
     * Tomcat, bound it in front of the application).
     */
    @DurationUnit(ChronoUnit.MILLIS)
    private Duration requestHeadTimeout = Duration.ofSeconds(10);

    /**
     * Which broadcast channels keep a history their clients recover from, and how much: rules like
     * {@code /chat/**:size=1000,ttl=300s,bytes=1m}, the first that covers a channel deciding (none by default).
     * A rule has commas of its own: give each by index, {@code weft.history[0]=/chat/**:size=1000,ttl=300s}.
     */
    private List<String> history = new ArrayList<>();

    /** How many channels may keep a history in this node's memory at once. */
    private int maxHistoryChannels = 10_000;

    /** How many of those the publishes of one remote address may have started. */
    private int maxHistoryChannelsPerAddress = 1_000;

    /** The most publications one channel's recovery delivers; past it a client is told it was not recovered. */
    private int maxRecoveredMessages = 1_000;

    /** The most channel positions one subscription may carry to recover. */
    private int maxRecoverChannels = 64;

    /** The browser cookie's parts: {@code weft.browser-cookie.*}. */
    public static class BrowserCookie {
        /** The cookie's name. */
        private String name = "BAYEUX_BROWSER";

        /** The cookie's path. */
        private String path = "/";

        /** Whether the cookie is sent over HTTPS only (it always is on a response the client receives over HTTPS). */
        private boolean secure = false;

        /** The cookie's SameSite attribute: Strict, Lax or None (None needs secure; cross-origin long-polling needs None). */
        private String sameSite = "Lax";

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public String getPath() {
            return path;
        }

        public void setPath(String path) {
            this.path = path;
        }

        public boolean isSecure() {
            return secure;
        }

        public void setSecure(boolean secure) {
            this.secure = secure;
        }

        public String getSameSite() {
            return sameSite;
        }

        public void setSameSite(String sameSite) {
            this.sameSite = sameSite;
        }
    }

    /**
     * The server options these properties set.
     *
     * @throws IllegalArgumentException naming the property whose value the option does not take (start-up has already
     *     failed so for a bound instance)
     */
    public ServerOptions toServerOptions() {
        ServerOptions.Builder builder = ServerOptions.builder();
        Map<String, String> options = optionsAsText();
        options.forEach((option, text) -> {
            try {
                builder.set(option, text);
            } catch (IllegalArgumentException x) {
                throw new IllegalArgumentException(problem(option, x), x);
            }
        });
        try {
            return builder.build();
        } catch (IllegalArgumentException x) {
            String option = options.keySet().stream().filter(name -> mentions(x, name)).findFirst().orElse(null);
            throw new IllegalArgumentException(option == null ? PREFIX + ": " + x.getMessage() : problem(option, x), x);
        }
    }

    /**
     * Every option, by its {@link ServerOptions.Builder#set} name, as the text {@code set} takes: one way from these
     * properties to the options, and the names the checks report.
     */
    Map<String, String> optionsAsText() {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("timeout", millis(timeout));
        options.put("interval", millis(interval));
        options.put("maxInterval", millis(maxInterval));
        options.put("maxQueue", Integer.toString(maxQueue));
        options.put("maxQueueBytes", bytes(maxQueueBytes));
        options.put("queueOverflow", queueOverflow == null ? "" : queueOverflow.name());
        options.put("maxMessageSize", bytes(maxMessageSize));
        options.put("maxMessagesPerFrame", Integer.toString(maxMessagesPerFrame));
        options.put("sweepPeriod", millis(sweepPeriod));
        options.put("broadcastToPublisher", Boolean.toString(broadcastToPublisher));
        options.put("metaConnectDeliveryOnly", Boolean.toString(metaConnectDeliveryOnly));
        options.put("multiSessionInterval", millis(multiSessionInterval));
        options.put("maxSessionsPerBrowser", Integer.toString(maxSessionsPerBrowser));
        options.put("browserCookie.name", text(browserCookie.name));
        options.put("browserCookie.path", text(browserCookie.path));
        options.put("browserCookie.secure", Boolean.toString(browserCookie.secure));
        options.put("browserCookie.sameSite", text(browserCookie.sameSite));
        options.put("trustClientId", Boolean.toString(trustClientId));
        options.put("allowedOrigins", allowedOrigins == null ? "" : String.join(",", allowedOrigins));
        options.put("webSocketDeflate", Boolean.toString(webSocketDeflate));
        options.put("requireHandshakePerConnection", Boolean.toString(requireHandshakePerConnection));
        options.put("maxLazyTimeout", millis(maxLazyTimeout));
        options.put("maxUnacknowledged", Integer.toString(maxUnacknowledged));
        options.put("maxUnacknowledgedBytes", bytes(maxUnacknowledgedBytes));
        options.put("maxResendBytes", bytes(maxResendBytes));
        options.put("maxChannelLength", Integer.toString(maxChannelLength));
        options.put("maxChannelDepth", Integer.toString(maxChannelDepth));
        options.put("maxChannels", Integer.toString(maxChannels));
        options.put("maxChannelsPerAddress", Integer.toString(maxChannelsPerAddress));
        options.put("clientRootWildcards", Boolean.toString(clientRootWildcards));
        options.put("maxSessions", Integer.toString(maxSessions));
        options.put("maxSessionsPerAddress", Integer.toString(maxSessionsPerAddress));
        options.put("maxLiveSessionsPerBrowser", Integer.toString(maxLiveSessionsPerBrowser));
        options.put("maxSubscriptionsPerSession", Integer.toString(maxSubscriptionsPerSession));
        options.put("maxMessagesPerBatch", Integer.toString(maxMessagesPerBatch));
        options.put("maxJsonDepth", Integer.toString(maxJsonDepth));
        options.put("maxPendingFrames", Integer.toString(maxPendingFrames));
        options.put("eventSourceHeartbeat", millis(eventSourceHeartbeat));
        options.put("maxConnectionsPerAddress", Integer.toString(maxConnectionsPerAddress));
        options.put("requestHeadTimeout", millis(requestHeadTimeout));
        options.put("history", history == null ? "" : String.join(";", history));
        options.put("maxHistoryChannels", Integer.toString(maxHistoryChannels));
        options.put("maxHistoryChannelsPerAddress", Integer.toString(maxHistoryChannelsPerAddress));
        options.put("maxRecoveredMessages", Integer.toString(maxRecoveredMessages));
        options.put("maxRecoverChannels", Integer.toString(maxRecoverChannels));
        return options;
    }

    /** The servlet mapping of {@link #getPath()}: {@code /cometd/*}, which matches {@code /cometd} itself. */
    String servletMapping() {
        return path + "/*";
    }

    @Override
    public boolean supports(Class<?> type) {
        return WeftProperties.class.isAssignableFrom(type);
    }

    /** Checks {@code weft.path} and each option alone, so that every bad value is reported under its own property. */
    @Override
    public void validate(Object target, Errors errors) {
        WeftProperties properties = (WeftProperties) target;
        String path = properties.path;
        if (path == null || !path.startsWith("/") || path.length() < 2 || path.endsWith("/") || path.contains("*")) {
            errors.rejectValue("path", "weft.path", PREFIX + ".path must start with '/', name at least one segment, "
                    + "and end neither with '/' nor with a wildcard (as /cometd does), was '" + path + "'");
        }
        properties.optionsAsText().forEach((option, text) -> {
            try {
                ServerOptions.builder().set(option, text).build();
            } catch (IllegalArgumentException x) {
                errors.rejectValue(option, "weft.option", problem(option, x));
            }
        });
    }

    /** {@code x}'s message, about {@code option}, told of its property: {@code weft.max-queue must be at least 1, ...}. */
    static String problem(String option, IllegalArgumentException x) {
        String property = propertyName(option);
        return mentions(x, option)
                ? property + x.getMessage().substring(option.length())
                : property + ": " + x.getMessage();
    }

    /** Whether {@code x}'s message is about {@code option}: ServerOptions' messages start with the option's name. */
    private static boolean mentions(IllegalArgumentException x, String option) {
        String message = x.getMessage();
        return message != null && (message.startsWith(option + " ") || message.startsWith(option + ":"));
    }

    /** The property of {@code option}, in Spring's canonical form: {@code browserCookie.sameSite} is {@code weft.browser-cookie.same-site}. */
    static String propertyName(String option) {
        StringBuilder name = new StringBuilder(PREFIX).append('.');
        for (char c : option.toCharArray()) {
            if (Character.isUpperCase(c)) {
                name.append('-').append(Character.toLowerCase(c));
            } else {
                name.append(c);
            }
        }
        return name.toString();
    }

    private static String millis(Duration duration) {
        if (duration == null) {
            return "";
        }
        try {
            return Long.toString(duration.toMillis());
        } catch (ArithmeticException tooLong) {
            return duration.toString(); // not a number of milliseconds: set() refuses it, naming the option
        }
    }

    private static String text(String value) {
        return value == null ? "" : value;
    }

    private static String bytes(DataSize size) {
        return size == null ? "" : Long.toString(size.toBytes());
    }

    public String getPath() {
        return path;
    }

    public void setPath(String path) {
        this.path = path;
    }

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public Duration getInterval() {
        return interval;
    }

    public void setInterval(Duration interval) {
        this.interval = interval;
    }

    public Duration getMaxInterval() {
        return maxInterval;
    }

    public void setMaxInterval(Duration maxInterval) {
        this.maxInterval = maxInterval;
    }

    public int getMaxQueue() {
        return maxQueue;
    }

    public void setMaxQueue(int maxQueue) {
        this.maxQueue = maxQueue;
    }

    public OverflowPolicy getQueueOverflow() {
        return queueOverflow;
    }

    public void setQueueOverflow(OverflowPolicy queueOverflow) {
        this.queueOverflow = queueOverflow;
    }

    public DataSize getMaxQueueBytes() {
        return maxQueueBytes;
    }

    public void setMaxQueueBytes(DataSize maxQueueBytes) {
        this.maxQueueBytes = maxQueueBytes;
    }

    public DataSize getMaxUnacknowledgedBytes() {
        return maxUnacknowledgedBytes;
    }

    public void setMaxUnacknowledgedBytes(DataSize maxUnacknowledgedBytes) {
        this.maxUnacknowledgedBytes = maxUnacknowledgedBytes;
    }

    public DataSize getMaxResendBytes() {
        return maxResendBytes;
    }

    public void setMaxResendBytes(DataSize maxResendBytes) {
        this.maxResendBytes = maxResendBytes;
    }

    public int getMaxChannelsPerAddress() {
        return maxChannelsPerAddress;
    }

    public void setMaxChannelsPerAddress(int maxChannelsPerAddress) {
        this.maxChannelsPerAddress = maxChannelsPerAddress;
    }

    public int getMaxConnectionsPerAddress() {
        return maxConnectionsPerAddress;
    }

    public void setMaxConnectionsPerAddress(int maxConnectionsPerAddress) {
        this.maxConnectionsPerAddress = maxConnectionsPerAddress;
    }

    public Duration getRequestHeadTimeout() {
        return requestHeadTimeout;
    }

    public void setRequestHeadTimeout(Duration requestHeadTimeout) {
        this.requestHeadTimeout = requestHeadTimeout;
    }

    public Duration getDrain() {
        return drain;
    }

    public void setDrain(Duration drain) {
        this.drain = drain;
    }

    public List<String> getHistory() {
        return history;
    }

    public void setHistory(List<String> history) {
        this.history = history;
    }

    public int getMaxHistoryChannels() {
        return maxHistoryChannels;
    }

    public void setMaxHistoryChannels(int maxHistoryChannels) {
        this.maxHistoryChannels = maxHistoryChannels;
    }

    public int getMaxHistoryChannelsPerAddress() {
        return maxHistoryChannelsPerAddress;
    }

    public void setMaxHistoryChannelsPerAddress(int maxHistoryChannelsPerAddress) {
        this.maxHistoryChannelsPerAddress = maxHistoryChannelsPerAddress;
    }

    public int getMaxRecoveredMessages() {
        return maxRecoveredMessages;
    }

    public void setMaxRecoveredMessages(int maxRecoveredMessages) {
        this.maxRecoveredMessages = maxRecoveredMessages;
    }

    public int getMaxRecoverChannels() {
        return maxRecoverChannels;
    }

    public void setMaxRecoverChannels(int maxRecoverChannels) {
        this.maxRecoverChannels = maxRecoverChannels;
    }

    public DataSize getMaxMessageSize() {
        return maxMessageSize;
    }

    public void setMaxMessageSize(DataSize maxMessageSize) {
        this.maxMessageSize = maxMessageSize;
    }

    public int getMaxMessagesPerFrame() {
        return maxMessagesPerFrame;
    }

    public void setMaxMessagesPerFrame(int maxMessagesPerFrame) {
        this.maxMessagesPerFrame = maxMessagesPerFrame;
    }

    public Duration getSweepPeriod() {
        return sweepPeriod;
    }

    public void setSweepPeriod(Duration sweepPeriod) {
        this.sweepPeriod = sweepPeriod;
    }

    public boolean isBroadcastToPublisher() {
        return broadcastToPublisher;
    }

    public void setBroadcastToPublisher(boolean broadcastToPublisher) {
        this.broadcastToPublisher = broadcastToPublisher;
    }

    public boolean isMetaConnectDeliveryOnly() {
        return metaConnectDeliveryOnly;
    }

    public void setMetaConnectDeliveryOnly(boolean metaConnectDeliveryOnly) {
        this.metaConnectDeliveryOnly = metaConnectDeliveryOnly;
    }

    public Duration getMultiSessionInterval() {
        return multiSessionInterval;
    }

    public void setMultiSessionInterval(Duration multiSessionInterval) {
        this.multiSessionInterval = multiSessionInterval;
    }

    public int getMaxSessionsPerBrowser() {
        return maxSessionsPerBrowser;
    }

    public void setMaxSessionsPerBrowser(int maxSessionsPerBrowser) {
        this.maxSessionsPerBrowser = maxSessionsPerBrowser;
    }

    public BrowserCookie getBrowserCookie() {
        return browserCookie;
    }

    public boolean isTrustClientId() {
        return trustClientId;
    }

    public void setTrustClientId(boolean trustClientId) {
        this.trustClientId = trustClientId;
    }

    public List<String> getAllowedOrigins() {
        return allowedOrigins;
    }

    public void setAllowedOrigins(List<String> allowedOrigins) {
        this.allowedOrigins = allowedOrigins;
    }

    public boolean isWebSocketDeflate() {
        return webSocketDeflate;
    }

    public void setWebSocketDeflate(boolean webSocketDeflate) {
        this.webSocketDeflate = webSocketDeflate;
    }

    public boolean isRequireHandshakePerConnection() {
        return requireHandshakePerConnection;
    }

    public void setRequireHandshakePerConnection(boolean requireHandshakePerConnection) {
        this.requireHandshakePerConnection = requireHandshakePerConnection;
    }

    public Duration getMaxLazyTimeout() {
        return maxLazyTimeout;
    }

    public void setMaxLazyTimeout(Duration maxLazyTimeout) {
        this.maxLazyTimeout = maxLazyTimeout;
    }

    public int getMaxUnacknowledged() {
        return maxUnacknowledged;
    }

    public void setMaxUnacknowledged(int maxUnacknowledged) {
        this.maxUnacknowledged = maxUnacknowledged;
    }

    public int getMaxChannelLength() {
        return maxChannelLength;
    }

    public void setMaxChannelLength(int maxChannelLength) {
        this.maxChannelLength = maxChannelLength;
    }

    public int getMaxChannelDepth() {
        return maxChannelDepth;
    }

    public void setMaxChannelDepth(int maxChannelDepth) {
        this.maxChannelDepth = maxChannelDepth;
    }

    public int getMaxChannels() {
        return maxChannels;
    }

    public void setMaxChannels(int maxChannels) {
        this.maxChannels = maxChannels;
    }

    public boolean isClientRootWildcards() {
        return clientRootWildcards;
    }

    public void setClientRootWildcards(boolean clientRootWildcards) {
        this.clientRootWildcards = clientRootWildcards;
    }

    public int getMaxSessions() {
        return maxSessions;
    }

    public void setMaxSessions(int maxSessions) {
        this.maxSessions = maxSessions;
    }

    public int getMaxSessionsPerAddress() {
        return maxSessionsPerAddress;
    }

    public void setMaxSessionsPerAddress(int maxSessionsPerAddress) {
        this.maxSessionsPerAddress = maxSessionsPerAddress;
    }

    public int getMaxLiveSessionsPerBrowser() {
        return maxLiveSessionsPerBrowser;
    }

    public void setMaxLiveSessionsPerBrowser(int maxLiveSessionsPerBrowser) {
        this.maxLiveSessionsPerBrowser = maxLiveSessionsPerBrowser;
    }

    public int getMaxSubscriptionsPerSession() {
        return maxSubscriptionsPerSession;
    }

    public void setMaxSubscriptionsPerSession(int maxSubscriptionsPerSession) {
        this.maxSubscriptionsPerSession = maxSubscriptionsPerSession;
    }

    public int getMaxMessagesPerBatch() {
        return maxMessagesPerBatch;
    }

    public void setMaxMessagesPerBatch(int maxMessagesPerBatch) {
        this.maxMessagesPerBatch = maxMessagesPerBatch;
    }

    public int getMaxJsonDepth() {
        return maxJsonDepth;
    }

    public void setMaxJsonDepth(int maxJsonDepth) {
        this.maxJsonDepth = maxJsonDepth;
    }

    public int getMaxPendingFrames() {
        return maxPendingFrames;
    }

    public void setMaxPendingFrames(int maxPendingFrames) {
        this.maxPendingFrames = maxPendingFrames;
    }

    public Duration getEventSourceHeartbeat() {
        return eventSourceHeartbeat;
    }

    public void setEventSourceHeartbeat(Duration eventSourceHeartbeat) {
        this.eventSourceHeartbeat = eventSourceHeartbeat;
    }
}
