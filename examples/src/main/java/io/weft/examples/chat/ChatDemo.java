package io.weft.examples.chat;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Starts the chat demo: {@code java io.weft.examples.chat.ChatDemo [--port=8080] [--host=127.0.0.1]
 * [--engine=jetty|netty] [--drain=10s] [--trust-proxy=ADDRESS,...] [--redis=redis://HOST:PORT [--announce=2000]]}.
 *
 * <p>Prints {@code READY port=<n>} on standard output once the server listens (scripts and tests wait for that
 * line), then the page's address, and runs until the process is stopped. On SIGTERM it drains for {@code --drain}
 * ({@code BayeuxServer.drain}: {@code /health} 503, its users sent to the other nodes spread over the window), then
 * stops.
 */
public final class ChatDemo {
    static final int DEFAULT_PORT = 8080;
    static final String DEFAULT_HOST = "127.0.0.1";
    /** How long the demo drains on SIGTERM unless {@code --drain=} says otherwise. */
    static final Duration DEFAULT_DRAIN = Duration.ofSeconds(10);
    private static final String DRAIN = "--drain=";

    private ChatDemo() {
    }

    public static void main(String[] args) throws Exception {
        ChatServer.Settings settings;
        try {
            settings = parse(args);
        } catch (IllegalArgumentException x) {
            System.err.println(x.getMessage());
            usage(System.err);
            System.exit(2);
            return;
        }
        if (settings == null) {
            usage(System.out);
            return;
        }
        ChatServer server;
        try {
            server = ChatServer.start(settings);
        } catch (IllegalStateException | IllegalArgumentException x) { // a Redis it cannot reach or parse: one line
            System.err.println("The chat demo could not start: "
                    + ChatCluster.redacted(String.valueOf(x.getMessage())));
            System.exit(1);
            return;
        }
        Duration drain = drainWindow(args);
        // SIGTERM (or Ctrl-C): the JVM waits for this hook, which drains (/health 503, the users sent to the other
        // nodes spread over the window), then stops the engine. Jetty's own stop-at-shutdown is off (ChatServer).
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("Draining for " + drain.toMillis() + " ms: /health answers 503, the users move to the "
                    + "other nodes");
            System.out.flush();
            server.drainAndClose(drain);
            System.out.println("Stopped");
            System.out.flush();
        }, "chat-demo-shutdown"));
        System.out.println("READY port=" + server.port());
        if (!settings.trustedProxies().isEmpty()) {
            System.out.println("Trusting the forwarded headers of " + String.join(", ", settings.trustedProxies()));
        }
        if (settings.redis() != null) {
            System.out.println("Cluster: the chat is shared with the other nodes through "
                    + ChatCluster.redacted(settings.redis()));
        }
        System.out.println("Chat demo: open " + server.baseUrl() + "/ in two browser tabs (Ctrl-C stops it)");
        System.out.flush();
        server.join();
    }

    /** The settings the arguments ask for; null when they ask for help. */
    static ChatServer.Settings parse(String... args) {
        int port = DEFAULT_PORT;
        String host = DEFAULT_HOST;
        String redis = null;
        Duration announce = ChatCluster.ANNOUNCE_EVERY;
        List<String> proxies = List.of();
        boolean netty = false;
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                return null;
            } else if (arg.startsWith("--port=")) {
                port = port(arg.substring("--port=".length()));
            } else if (arg.startsWith("--host=") && arg.length() > "--host=".length()) {
                host = arg.substring("--host=".length());
            } else if (arg.startsWith("--redis=")) {
                redis = redis(arg.substring("--redis=".length()));
            } else if (arg.startsWith("--announce=")) {
                announce = announce(arg.substring("--announce=".length()));
            } else if (arg.startsWith("--engine=")) {
                netty = engine(arg.substring("--engine=".length()));
            } else if (arg.startsWith("--trust-proxy=")) {
                proxies = proxies(arg.substring("--trust-proxy=".length()));
            } else if (arg.startsWith(DRAIN)) {
                duration(arg.substring(DRAIN.length())); // checked here, read by drainWindow
            } else {
                throw new IllegalArgumentException("unknown argument: " + arg);
            }
        }
        return ChatServer.Settings.of(port).withHost(host).withRedis(redis).withAnnounceEvery(announce)
                .withTrustedProxies(proxies).withNetty(netty);
    }

    /** How long to drain on SIGTERM: {@code --drain=}, or {@link #DEFAULT_DRAIN}. */
    static Duration drainWindow(String... args) {
        Duration window = DEFAULT_DRAIN;
        for (String arg : args) {
            if (arg.startsWith(DRAIN)) {
                window = duration(arg.substring(DRAIN.length()));
            }
        }
        return window;
    }

    /** {@code 10s}, {@code 500ms}, {@code 2m}, or {@code 0}: at most an hour. */
    static Duration duration(String value) {
        String text = value.trim();
        try {
            Duration parsed;
            if (text.endsWith("ms")) {
                parsed = Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
            } else if (text.endsWith("s")) {
                parsed = Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1)));
            } else if (text.endsWith("m")) {
                parsed = Duration.ofMinutes(Long.parseLong(text.substring(0, text.length() - 1)));
            } else {
                parsed = Duration.ofSeconds(Long.parseLong(text));
            }
            if (!parsed.isNegative() && parsed.compareTo(Duration.ofHours(1)) <= 0) {
                return parsed;
            }
        } catch (NumberFormatException x) {
            // reported below
        }
        throw new IllegalArgumentException("--drain must be a duration from 0 to 1 hour, as 10s, 500ms or 2m: "
                + value);
    }

    /** Whether {@code --engine=} names Netty (else embedded Jetty). */
    private static boolean engine(String value) {
        return switch (value) {
            case "jetty" -> false;
            case "netty" -> true;
            default -> throw new IllegalArgumentException("--engine must be jetty or netty: " + value);
        };
    }

    private static List<String> proxies(String value) {
        List<String> proxies = Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        if (proxies.isEmpty()) {
            throw new IllegalArgumentException("--trust-proxy needs the proxy's IP address (or a CIDR range), "
                    + "comma-separated for several: " + value);
        }
        return proxies;
    }

    private static String redis(String value) {
        if (!value.startsWith("redis://") && !value.startsWith("rediss://")) {
            throw new IllegalArgumentException("--redis must be redis://HOST:PORT (or rediss:// for TLS): " + value);
        }
        return value;
    }

    private static Duration announce(String value) {
        try {
            long millis = Long.parseLong(value);
            if (millis >= 10 && millis <= 200_000) {
                return Duration.ofMillis(millis);
            }
        } catch (NumberFormatException x) {
            // reported below
        }
        throw new IllegalArgumentException("--announce must be a number of milliseconds from 10 to 200000: " + value);
    }

    private static int port(String value) {
        try {
            int port = Integer.parseInt(value);
            if (port >= 0 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException x) {
            // reported below
        }
        throw new IllegalArgumentException("--port must be a number from 0 to 65535: " + value);
    }

    private static void usage(PrintStream out) {
        out.println("usage: ChatDemo [--port=8080] [--host=127.0.0.1] [--engine=jetty|netty] [--drain=10s]");
        out.println("                [--trust-proxy=ADDRESS,...] [--redis=redis://HOST:PORT [--announce=2000]]");
        out.println("  --port=N        the port to listen on; 0 picks a free one (printed as READY port=N)");
        out.println("  --host=H        the address to listen on; 0.0.0.0 lets other machines in");
        out.println("  --engine=E      jetty (embedded Jetty, the default) or netty (transport-netty): the same page,");
        out.println("                  Bayeux path and /metrics, /stats, /health");
        out.println("  --trust-proxy=A behind a reverse proxy: its IP address or CIDR range (several: comma-separated),");
        out.println("                  whose X-Forwarded-Proto/-Host/-Port/-For (or Forwarded) headers are used;");
        out.println("                  everyone else's are ignored (none: ignored from all)");
        out.println("  --redis=URI     join the cluster of the nodes started with this Redis (none: a single node)");
        out.println("  --announce=MS   with --redis: how often this node tells the others its member lists again;");
        out.println("                  they forget them 3 periods after the last they heard (the node died)");
        out.println("  --drain=T       on SIGTERM (or Ctrl-C), how long to drain before stopping: /health answers 503");
        out.println("                  at once and the users are sent to the other nodes spread over T (10s, 500ms,");
        out.println("                  2m; 0 sends them all at once)");
    }
}
