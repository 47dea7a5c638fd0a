package io.weft.load;

import io.weft.cluster.redis.RedisBroker;
import io.weft.cluster.redis.RedisBrokerOptions;
import io.weft.metrics.micrometer.MetricsFallback;
import io.weft.metrics.micrometer.MetricsHandler;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.Service;
import io.weft.server.ext.AcknowledgedMessagesExtension;
import io.weft.server.ext.TimesyncExtension;
import io.weft.server.spi.Broker;
import io.weft.transport.longpoll.LongPollingConnectors;
import io.weft.transport.netty.Fallback;
import io.weft.transport.netty.WeftNetty;
import io.weft.transport.websocket.WeftJetty;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The server side of the load test and of the benchmarks: Weft on embedded Jetty with websocket, long-polling and
 * callback-polling on one path, the ack and timesync extensions installed for the clients that ask (unless
 * {@code --extensions} says otherwise), {@code GET /metrics}, {@code /stats} and {@code /health}, and the services the
 * load tool calls: {@code /service/load/start} and {@code /service/load/stop} around each run, whose answer (and
 * console output) is the server's CPU, heap, RSS and GC during the run (and the relay's round trips, when devices
 * registered); the emitter ({@link EmitterService}) and the device relay ({@link RelayService}) of the benchmarks.
 * Prints {@code READY port=<n>} once listening; on SIGINT/SIGTERM drains for {@code --drain} (10 s) and stops; stops
 * at once when {@code exit} is typed.
 *
 * <pre>mvn -Pserver exec:exec [-Dload.args="--port=8080"]</pre>
 */
@Command(name = "LoadServer", mixinStandardHelpOptions = true, sortOptions = false,
        description = "A Weft server for the load client: websocket, long-polling and callback-polling.")
public final class LoadServer implements Callable<Integer> {
    static final String START = "/service/load/start";
    static final String STOP = "/service/load/stop";

    @Option(names = "--port", defaultValue = "8080", description = "Port to listen on; 0 picks a free one [${DEFAULT-VALUE}].")
    int port;

    @Option(names = "--host", defaultValue = "0.0.0.0", description = "Address to bind [${DEFAULT-VALUE}].")
    String host;

    @Option(names = "--context", defaultValue = "/cometd", description = "The Bayeux path [${DEFAULT-VALUE}].")
    String context;

    @Option(names = "--max-threads", defaultValue = "256", description = "Jetty's thread pool size [${DEFAULT-VALUE}].")
    int maxThreads;

    @Option(names = "--timeout", defaultValue = "20000",
            description = "How long a /meta/connect is held, ms [${DEFAULT-VALUE}].")
    long timeout;

    @Option(names = "--max-sessions-per-address", defaultValue = "1000000",
            description = "Live sessions one client address may hold: a load run comes from one machine, so far more "
                    + "than a server facing the internet allows (its default is 1000) [${DEFAULT-VALUE}].")
    int maxSessionsPerAddress;

    @Option(names = "--max-connections-per-address", defaultValue = "1000000",
            description = "Connections one client address may have open, for the same reason (the server's default is "
                    + "2000) [${DEFAULT-VALUE}].")
    int maxConnectionsPerAddress;

    @Option(names = "--extensions", split = ",", defaultValue = "ack,timesync",
            description = "Server extensions to install: ack, timesync, or none (the benchmarks measure Weft as the "
                    + "peers run, without) [${DEFAULT-VALUE}].")
    List<String> extensions;

    @Option(names = "--jetty-defaults",
            description = "Jetty's default HTTP configuration instead of Weft's for parked long-polls (a header "
                    + "field cache per connection, 8 KB request buffers), to measure what Weft's saves.")
    boolean jettyDefaults;

    @Option(names = "--redis", description = "Join a cluster: share broadcasts with the other nodes through this Redis "
            + "(redis://HOST:PORT), or with --redis-sharded these Redis Cluster nodes (redis://HOST:PORT,...) "
            + "[none: a single node].")
    String redis;

    @Option(names = "--trust-proxy", split = ",", paramLabel = "ADDRESS",
            description = "Behind a reverse proxy: its IP address or CIDR range (several: comma-separated), whose "
                    + "X-Forwarded-Proto/-Host/-Port/-For (or Forwarded) headers are used; everyone else's are ignored "
                    + "[none: ignored from all].")
    List<String> trustedProxies = List.of();

    @Option(names = "--engine", defaultValue = "jetty", converter = EngineConverter.class,
            description = "What serves Bayeux: jetty (embedded Jetty, the default) or netty (transport-netty) "
                    + "[${DEFAULT-VALUE}].")
    Engine engine;

    @Option(names = "--drain", defaultValue = "10s", converter = DrainConverter.class,
            description = "On SIGTERM (or Ctrl+C), how long to drain before stopping: /health answers 503 at once and "
                    + "the clients are told to handshake again (elsewhere) spread over this window, e.g. 10s, 500ms, "
                    + "2m; 0 tells them all at once [${DEFAULT-VALUE}].")
    Duration drain;

    @Option(names = "--redis-sharded", description = "--redis names a Redis Cluster (7+): use sharded pub/sub "
            + "(SPUBLISH/SSUBSCRIBE), each channel on the shard that owns its slot.")
    boolean redisSharded;

    @Option(names = "--option", paramLabel = "NAME=VALUE",
            description = "Any server option by its name, as ServerOptions.Builder.set takes it (e.g. "
                    + "--option=history=/chat/**); repeatable; after the flags above, so it overrides them.")
    Map<String, String> serverOptions = new LinkedHashMap<>();

    public static void main(String[] args) {
        System.exit(new CommandLine(new LoadServer()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Running running;
        try {
            running = start(new Settings(host, port, context, maxThreads, options(),
                    Extension.parse(extensions), jettyDefaults, redis, redisSharded, trustedProxies, engine),
                    System.out);
        } catch (IllegalArgumentException x) { // an option's value: one line, no stack trace
            System.err.println("LoadServer could not start: " + x.getMessage());
            return 2;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        // The JVM waits for its shutdown hooks: this one drains, then stops the engine (Jetty's own stop at shutdown
        // is off, so it does not cut the drain short).
        Duration window = drain;
        Thread hook = new Thread(() -> {
            running.drainAndClose(window);
            stopped.countDown();
        }, "load-server-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        System.out.println("READY port=" + running.port());
        System.out.println("Type 'exit' (or press Ctrl+C) to stop.");
        System.out.flush();
        Thread console = new Thread(() -> readConsole(running), "load-server-console");
        console.setDaemon(true);
        console.start();
        running.awaitClosed();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            stopped.await();
        }
        System.out.println("Server stopped");
        return 0;
    }

    /** The flags' options, then {@code --option}'s by name; an unknown name or a bad value fails the start. */
    ServerOptions options() {
        ServerOptions.Builder options = ServerOptions.builder().timeout(timeout)
                .maxSessionsPerAddress(maxSessionsPerAddress).maxConnectionsPerAddress(maxConnectionsPerAddress);
        serverOptions.forEach(options::set);
        return options.build();
    }

    /** Reads commands until {@code exit}; an input that ends (a script without a terminal) leaves the server up. */
    private static void readConsole(Running running) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if ("exit".equalsIgnoreCase(line.trim()) || "quit".equalsIgnoreCase(line.trim())) {
                    running.close();
                    return;
                }
            }
        } catch (Exception x) {
            // No console: keep serving until a signal stops the server.
        }
    }

    /** The server extensions {@code --extensions} may name. */
    /** The accept queue: connection storms of thousands of clients from one machine. */
    private static final int ACCEPT_QUEUE = 4096;

    /** What serves Bayeux: embedded Jetty, or Netty. */
    public enum Engine {
        JETTY, NETTY
    }

    /** {@code 10s}, {@code 500ms}, {@code 2m}, or a number of seconds; from 0 to an hour. */
    static final class DrainConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String text) {
            String value = text.trim();
            try {
                Duration parsed;
                if (value.endsWith("ms")) {
                    parsed = Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
                } else if (value.endsWith("s")) {
                    parsed = Duration.ofSeconds(Long.parseLong(value.substring(0, value.length() - 1)));
                } else if (value.endsWith("m")) {
                    parsed = Duration.ofMinutes(Long.parseLong(value.substring(0, value.length() - 1)));
                } else {
                    parsed = Duration.ofSeconds(Long.parseLong(value));
                }
                if (!parsed.isNegative() && parsed.compareTo(Duration.ofHours(1)) <= 0) {
                    return parsed;
                }
            } catch (NumberFormatException x) {
                // reported below
            }
            throw new CommandLine.TypeConversionException("a duration from 0 to 1 hour, as 10s, 500ms or 2m, was '"
                    + text + "'");
        }
    }

    static final class EngineConverter implements CommandLine.ITypeConverter<Engine> {
        @Override
        public Engine convert(String text) {
            try {
                return Engine.valueOf(text.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException x) {
                throw new CommandLine.TypeConversionException("jetty or netty, was '" + text + "'");
            }
        }
    }

    public enum Extension {
        ACK, TIMESYNC;

        static Set<Extension> parse(List<String> names) {
            Set<Extension> chosen = EnumSet.noneOf(Extension.class);
            for (String name : names) {
                String trimmed = name.trim().toUpperCase(Locale.ROOT);
                if (trimmed.equals("NONE")) {
                    continue;
                }
                try {
                    chosen.add(valueOf(trimmed));
                } catch (IllegalArgumentException x) {
                    throw new IllegalArgumentException("ack, timesync or none: " + name, x);
                }
            }
            return chosen;
        }
    }

    /**
     * What a load server is started with. Immutable.
     *
     * @param host the address to bind
     * @param port the port; 0 picks a free one
     * @param context the Bayeux path
     * @param maxThreads Jetty's thread pool size
     * @param options the Bayeux server's options
     * @param extensions the server extensions to install
     * @param jettyDefaults Jetty's default HTTP configuration rather than {@code LongPollingConnectors}'
     * @param redis the Redis URI of a cluster to join (cluster-redis's {@code RedisBroker}), or null for a single node
     * @param redisSharded whether {@code redis} names Redis Cluster nodes, for sharded pub/sub
     * @param trustedProxies the reverse proxies (IP addresses or CIDR ranges) whose forwarded headers are used
     *     ({@code LongPollingConnectors.trustProxies} on Jetty, {@code WeftNetty.Builder.trustProxies} on Netty);
     *     empty: none
     * @param engine what serves Bayeux: embedded Jetty, or Netty (then {@code maxThreads} and {@code jettyDefaults}
     *     do not apply: Netty runs one event loop per processor)
     */
    public record Settings(String host, int port, String context, int maxThreads, ServerOptions options,
            Set<Extension> extensions, boolean jettyDefaults, String redis, boolean redisSharded,
            List<String> trustedProxies, Engine engine) {
        public Settings {
            extensions = extensions.isEmpty() ? EnumSet.noneOf(Extension.class) : EnumSet.copyOf(extensions);
            trustedProxies = List.copyOf(trustedProxies);
            Objects.requireNonNull(engine, "engine");
        }

        /** A node on embedded Jetty. */
        public Settings(String host, int port, String context, int maxThreads, ServerOptions options,
                Set<Extension> extensions, boolean jettyDefaults, String redis, boolean redisSharded,
                List<String> trustedProxies) {
            this(host, port, context, maxThreads, options, extensions, jettyDefaults, redis, redisSharded,
                    trustedProxies, Engine.JETTY);
        }

        /** A node that trusts no proxy. */
        public Settings(String host, int port, String context, int maxThreads, ServerOptions options,
                Set<Extension> extensions, boolean jettyDefaults, String redis, boolean redisSharded) {
            this(host, port, context, maxThreads, options, extensions, jettyDefaults, redis, redisSharded, List.of());
        }

        /** This node on {@code other}. */
        public Settings withEngine(Engine other) {
            return new Settings(host, port, context, maxThreads, options, extensions, jettyDefaults, redis,
                    redisSharded, trustedProxies, other);
        }

        /** A node on plain Redis pub/sub, or a single node if {@code redis} is null. */
        public Settings(String host, int port, String context, int maxThreads, ServerOptions options,
                Set<Extension> extensions, boolean jettyDefaults, String redis) {
            this(host, port, context, maxThreads, options, extensions, jettyDefaults, redis, false);
        }

        /** A single node. */
        public Settings(String host, int port, String context, int maxThreads, ServerOptions options,
                Set<Extension> extensions, boolean jettyDefaults) {
            this(host, port, context, maxThreads, options, extensions, jettyDefaults, null, false);
        }
    }

    /** Starts a load server with both extensions and Weft's connector settings; the caller closes it. */
    public static Running start(String host, int port, String context, int maxThreads, ServerOptions options,
            PrintStream out) throws Exception {
        return start(new Settings(host, port, context, maxThreads, options, EnumSet.allOf(Extension.class), false),
                out);
    }

    /** Starts a load server; the caller closes it. Run reports go to {@code out}. */
    public static Running start(Settings settings, PrintStream out) throws Exception {
        Server jetty = settings.engine() == Engine.JETTY ? jetty(settings, out) : null;
        BayeuxServer bayeux = bayeux(settings, out);
        ServerMonitor monitor = new ServerMonitor();
        RelayService relay = new RelayService(bayeux);
        EmitterService emitter = new EmitterService(bayeux);
        services(bayeux, monitor, relay, out);
        try {
            if (jetty != null) {
                WeftJetty.mount(jetty, bayeux, settings.context());
                jetty.insertHandler(new MetricsHandler(bayeux)); // GET /metrics, /stats, /health, in front of Weft
                jetty.setStopAtShutdown(false);
                jetty.start();
                return new Running(jetty::stop, bayeux, emitter, ((ServerConnector) jetty.getConnectors()[0])
                        .getLocalPort());
            }
            WeftNetty.Builder builder = WeftNetty.on(bayeux).host(settings.host()).port(settings.port())
                    .path(settings.context()).backlog(ACCEPT_QUEUE)
                    .fallback(new MetricsFallback(bayeux, Fallback.NOT_FOUND)); // GET /metrics, /stats, /health
            if (!settings.trustedProxies().isEmpty()) {
                builder.trustProxies(settings.trustedProxies());
                out.println("Trusting the forwarded headers of " + String.join(", ", settings.trustedProxies()));
            }
            WeftNetty netty = builder.start();
            out.println("Engine: " + netty);
            return new Running(netty, bayeux, emitter, netty.port());
        } catch (Exception x) {
            emitter.close();
            bayeux.close();
            throw x;
        }
    }

    /** Embedded Jetty with its connector, not started; Weft's HTTP settings unless {@code jettyDefaults}. */
    private static Server jetty(Settings settings, PrintStream out) {
        QueuedThreadPool threads = new QueuedThreadPool(settings.maxThreads());
        threads.setName("load-server");
        Server jetty = new Server(threads);
        // Parked long-polls cost ~7 KB each with Weft's settings, ~110 KB with Jetty's defaults.
        HttpConfiguration http = settings.jettyDefaults() ? new HttpConfiguration()
                : LongPollingConnectors.httpConfiguration();
        // HTTP/1.1, and h2c for clients that open with HTTP/2's preface: every tab's long-poll on one connection.
        ServerConnector connector = new ServerConnector(jetty, new HttpConnectionFactory(http),
                new HTTP2CServerConnectionFactory(http));
        connector.setHost(settings.host());
        connector.setPort(settings.port());
        connector.setAcceptQueueSize(ACCEPT_QUEUE);
        jetty.addConnector(connector);
        if (!settings.trustedProxies().isEmpty()) { // first: an address that is not one fails before anything runs
            LongPollingConnectors.trustProxies(jetty, settings.trustedProxies());
            out.println("Trusting the forwarded headers of " + String.join(", ", settings.trustedProxies()));
        }
        return jetty;
    }

    /** The Bayeux server, in its cluster if {@code redis}, with the extensions asked for. */
    private static BayeuxServer bayeux(Settings settings, PrintStream out) {
        BayeuxServer bayeux = BayeuxServer.create(settings.options());
        if (settings.redis() != null) {
            try {
                Broker.install(bayeux, RedisBroker.create(RedisBrokerOptions.builder(settings.redis())
                        .sharded(settings.redisSharded()).build()));
            } catch (RuntimeException x) {
                bayeux.close();
                throw x;
            }
            out.println("Cluster: broadcasts shared through " + settings.redis()
                    + (settings.redisSharded() ? " (sharded pub/sub)" : ""));
        }
        if (settings.extensions().contains(Extension.ACK)) {
            bayeux.addExtension(new AcknowledgedMessagesExtension());
        }
        if (settings.extensions().contains(Extension.TIMESYNC)) {
            bayeux.addExtension(new TimesyncExtension());
        }
        return bayeux;
    }

    /** The services a load client drives the run with: start, stop. */
    private static void services(BayeuxServer bayeux, ServerMonitor monitor, RelayService relay, PrintStream out) {
        bayeux.addService(START, Service.of((from, request) -> {
            monitor.start(from.getId());
            relay.start();
            out.println();
            out.println("Run started by " + from.getId());
            return Map.of("started", true);
        }));
        bayeux.addService(STOP, Service.of((from, request) -> {
            Map<String, Object> report = monitor.stop(from.getId());
            ServerMonitor.lines(report).forEach(out::println);
            Map<String, Object> roundTrips = relay.report();
            if (roundTrips != null) {
                report.put("relayRoundTrip", roundTrips);
                out.println("Server - Relay round trips: " + roundTrips);
            }
            out.flush();
            return report;
        }));
    }

    /** A started load server. */
    public static final class Running implements AutoCloseable {
        /** How long past its window a drain is waited for (its close answering the last held connects). */
        private static final long DRAIN_MARGIN_MILLIS = 5_000;
        private final AutoCloseable transport;
        private final BayeuxServer bayeux;
        private final EmitterService emitter;
        private final int port;
        private final CountDownLatch closed = new CountDownLatch(1);

        Running(AutoCloseable transport, BayeuxServer bayeux, EmitterService emitter, int port) {
            this.transport = transport;
            this.bayeux = bayeux;
            this.emitter = emitter;
            this.port = port;
        }

        public int port() {
            return port;
        }

        public BayeuxServer bayeux() {
            return bayeux;
        }

        void awaitClosed() throws InterruptedException {
            closed.await();
        }

        /**
         * Drains the Bayeux server over {@code window} ({@code /health} 503 at once, the clients told to handshake
         * again elsewhere, spread over the window), waits for it to close, then stops the engine: what SIGTERM does.
         */
        void drainAndClose(Duration window) {
            try {
                bayeux.drain(window).toCompletableFuture().get(window.toMillis() + DRAIN_MARGIN_MILLIS,
                        TimeUnit.MILLISECONDS);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException x) {
                System.err.println("The drain did not end in time; stopping anyway: " + x);
            } finally {
                close();
            }
        }

        /** Stops the engine (Jetty or Netty), then the Bayeux server. */
        @Override
        public synchronized void close() {
            if (closed.getCount() == 0) {
                return;
            }
            try {
                emitter.close();
                transport.close();
            } catch (Exception x) {
                System.err.println("Stopping the engine failed: " + x);
            } finally {
                bayeux.close();
                closed.countDown();
            }
        }
    }
}
