package io.weft.load;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The load client: simulated chat clients on one Bayeux server, the classic CometD load test rebuilt on Weft's
 * client. This class is the configuration part: every setting is a flag, and each one not given is asked for with
 * its default in brackets (unless {@code --auto}). {@link LoadSession} runs what is configured.
 *
 * <pre>mvn -Pclient exec:exec -Dload.args="--auto --clients=1000 --transport=websocket"</pre>
 */
@Command(name = "LoadClient", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Load tests a Bayeux server with simulated chat clients.")
public final class LoadClient implements Callable<Integer> {
    static final String DEFAULT_SERVER = "localhost";
    static final int DEFAULT_PORT = 8080;
    static final int DEFAULT_MAX_THREADS = 256;
    static final String DEFAULT_CONTEXT = "/cometd";
    static final String DEFAULT_CHANNEL = "/chat/demo";
    static final int DEFAULT_ROOMS = 100;
    static final int DEFAULT_ROOMS_PER_CLIENT = 1;
    static final int DEFAULT_CLIENTS = 100;
    static final int DEFAULT_BATCHES = 1000;
    static final int DEFAULT_BATCH_SIZE = 10;
    static final long DEFAULT_BATCH_PAUSE = 10_000;
    static final int DEFAULT_MESSAGE_SIZE = 50;

    @Option(names = "--server", description = "Server host [localhost].")
    String server;

    @Option(names = "--port", description = "Server port [8080].")
    Integer port;

    @Option(names = "--transport",
            description = "websocket, long-polling or eventsource (or 1 / 0 / 2) [long-polling].")
    String transport;

    @Option(names = "--ssl", arity = "0..1", description = "Use https / wss [false].")
    Boolean ssl;

    @Option(names = "--max-threads", description = "Threads shared by all clients [256].")
    Integer maxThreads;

    @Option(names = "--context", description = "The Bayeux path [/cometd].")
    String context;

    @Option(names = "--channel", description = "Room channel prefix [/chat/demo].")
    String channel;

    @Option(names = "--rooms", description = "Number of rooms [100].")
    Integer rooms;

    @Option(names = "--rooms-per-client", description = "Rooms each client joins [1].")
    Integer roomsPerClient;

    @Option(names = "--record-latency", arity = "0..1", description = "Record each message's latency [true].")
    Boolean recordLatency;

    @Option(names = "--clients", description = "Simulated clients [100]; 0 disconnects them all and exits.")
    Integer clients;

    @Option(names = "--batches", description = "Batch count [1000].")
    Integer batches;

    @Option(names = "--batch-size", description = "Messages per batch [10].")
    Integer batchSize;

    @Option(names = "--batch-pause", description = "Pause between batches, µs [10000].")
    Long batchPause;

    @Option(names = "--message-size", description = "Chat text per message, characters [50].")
    Integer messageSize;

    @Option(names = "--randomize", arity = "0..1", description = "Pick each batch's sender at random [false].")
    Boolean randomize;

    @Option(names = "--ack", arity = "0..1", description = "Clients ask for the ack extension [false].")
    Boolean ack;

    @Option(names = "--auto", description = "No prompts: one run with the given values, then disconnect and exit.")
    boolean auto;

    @Option(names = "--results", defaultValue = "target/load-results",
            description = "Folder for the CSV and charts [${DEFAULT-VALUE}].")
    Path results;

    @Option(names = "--seed", description = "Seed for rooms and senders [random].")
    Long seed;

    @Option(names = "--wait", defaultValue = "30",
            description = "Seconds without progress before giving up waiting for clients or messages [${DEFAULT-VALUE}].")
    int stallSeconds;

    private final InputStream in;
    private final PrintStream out;
    private LoadSession.RunResult lastRun;

    public LoadClient() {
        this(System.in, System.out);
    }

    LoadClient(InputStream in, PrintStream out) {
        this.in = in;
        this.out = out;
    }

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(new CommandLine(new LoadClient()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Prompter prompter = new Prompter(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)), out);
        LoadConfig config = configure(prompter);
        long actualSeed = seed != null ? seed : System.nanoTime();
        LoadSession session = new LoadSession(config, this, prompter, out, actualSeed, stallSeconds);
        lastRun = session.run();
        return lastRun == null || lastRun.complete() ? 0 : 2;
    }

    /** The outcome of the last run, or null if none ran. */
    LoadSession.RunResult lastRun() {
        return lastRun;
    }

    /** The session's settings: each flag given, the others asked for (or their defaults under {@code --auto}). */
    LoadConfig configure(Prompter prompter) {
        String host = value(server, prompter, p -> p.askString("server", DEFAULT_SERVER), DEFAULT_SERVER);
        int serverPort = value(port, prompter, p -> p.askInt("port", DEFAULT_PORT), DEFAULT_PORT);
        String type = transport != null ? parseTransport(transport)
                : auto ? LoadConfig.LONG_POLLING
                : prompter.ask("transport (0 long-polling, 1 websocket, 2 eventsource)", "0",
                        LoadClient::parseTransport);
        type = parseTransport(type);
        boolean useSsl = value(ssl, prompter, p -> p.askBoolean("use ssl", false), false);
        int threads = value(maxThreads, prompter, p -> p.askInt("max threads", DEFAULT_MAX_THREADS),
                DEFAULT_MAX_THREADS);
        String path = value(context, prompter, p -> p.askString("context", DEFAULT_CONTEXT), DEFAULT_CONTEXT);
        String prefix = value(channel, prompter, p -> p.askString("channel", DEFAULT_CHANNEL), DEFAULT_CHANNEL);
        int roomCount = value(rooms, prompter, p -> p.askInt("rooms", DEFAULT_ROOMS), DEFAULT_ROOMS);
        int perClient = value(roomsPerClient, prompter, p -> p.askInt("rooms per client", DEFAULT_ROOMS_PER_CLIENT),
                DEFAULT_ROOMS_PER_CLIENT);
        boolean latency = value(recordLatency, prompter, p -> p.askBoolean("record latency details", true), true);
        return new LoadConfig(host, serverPort, type, useSsl, threads, path, prefix, roomCount, perClient, latency,
                ack != null && ack, results);
    }

    /** The clients for the next run: the flag the first time, then asked (unless --auto). */
    int clients(Prompter prompter, int previous, boolean first) {
        if (first && clients != null) {
            return clients;
        }
        if (auto) {
            return first ? DEFAULT_CLIENTS : 0;
        }
        return prompter.askInt("clients", previous);
    }

    /** The next run's settings: flags the first time, then asked with the previous run's values as defaults. */
    RunConfig run(Prompter prompter, int clientCount, RunConfig previous) {
        boolean first = previous == null;
        int count = first ? pick(batches, DEFAULT_BATCHES) : previous.batches();
        int size = first ? pick(batchSize, DEFAULT_BATCH_SIZE) : previous.batchSize();
        long pause = first ? pick(batchPause, DEFAULT_BATCH_PAUSE) : previous.batchPauseMicros();
        int bytes = first ? pick(messageSize, DEFAULT_MESSAGE_SIZE) : previous.messageSize();
        boolean random = first ? pick(randomize, false) : previous.randomize();
        if (!auto) {
            count = first && batches != null ? count : prompter.askInt("batch count", count);
            size = first && batchSize != null ? size : prompter.askInt("batch size", size);
            pause = first && batchPause != null ? pause : prompter.askLong("batch pause (µs)", pause);
            bytes = first && messageSize != null ? bytes : prompter.askInt("message size", bytes);
            random = first && randomize != null ? random : prompter.askBoolean("randomize sends", random);
        }
        return new RunConfig(clientCount, count, size, pause, bytes, random);
    }

    private <T> T value(T flag, Prompter prompter, java.util.function.Function<Prompter, T> ask, T fallback) {
        if (flag != null) {
            return flag;
        }
        return auto ? fallback : ask.apply(prompter);
    }

    private static <T> T pick(T flag, T fallback) {
        return flag != null ? flag : fallback;
    }

    static String parseTransport(String text) {
        String value = text.trim().toLowerCase(Locale.ROOT);
        return switch (value) {
            case "0", "long-polling", "longpolling", "long_polling" -> LoadConfig.LONG_POLLING;
            case "1", "websocket", "ws" -> LoadConfig.WEBSOCKET;
            case "2", "eventsource", "event-source", "sse" -> LoadConfig.EVENTSOURCE;
            default -> throw new IllegalArgumentException("0 (long-polling), 1 (websocket) or 2 (eventsource): "
                    + text);
        };
    }
}
