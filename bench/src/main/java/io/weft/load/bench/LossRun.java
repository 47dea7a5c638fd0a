package io.weft.load.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One loss run (issue 27): subscribers (loss.mjs, in Node), of the official CometD JavaScript client, of weft.js or
 * half of each, reach two Weft nodes through HAProxy ({@link LossCluster}), a publisher numbers {@code rate} messages
 * a second across the channels, a fault is made at {@code faultAt} into the publishing, and each subscriber counts
 * what it lost, got twice or got out of order. With {@code recovery}, the nodes keep history on the run's channels
 * ({@code --option=history=}), every official client runs weft-recovery.js and every weft.js client its own recovery:
 * then nothing may be lost.
 */
final class LossRun {
    /** The channels' prefix, and the history rule that covers them. */
    static final String PREFIX = "/loss";
    static final String HISTORY = PREFIX + "/**";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Which JavaScript client the subscribers are (loss.mjs's {@code clients=}). */
    enum Clients {
        /** The official CometD client (npm cometd), with weft-recovery.js when recovering. */
        COMETD("cometd"),
        /** weft.js, Weft's own client, which recovers by itself. */
        WEFT("weft"),
        /** Half of each, both kinds on every channel. */
        MIXED("mixed");

        final String label;

        Clients(String label) {
            this.label = label;
        }

        static Clients parse(String text) {
            return switch (text.trim().toLowerCase(Locale.ROOT)) {
                case "cometd" -> COMETD;
                case "weft", "weft.js" -> WEFT;
                case "mixed" -> MIXED;
                default -> throw new IllegalArgumentException("cometd, weft or mixed: " + text);
            };
        }
    }

    /** What is done to the cluster while subscribers listen. */
    enum Fault {
        /** Nothing: the run's baseline. */
        NONE("none"),
        /** {@code kill -9} node a, which stays down. */
        KILL("kill -9"),
        /** SIGTERM node a, start it again, wait until HAProxy takes it back, then the same with node b. */
        ROLLING("rolling restart");

        final String label;

        Fault(String label) {
            this.label = label;
        }

        static Fault parse(String text) {
            return switch (text.trim().toLowerCase(Locale.ROOT)) {
                case "none" -> NONE;
                case "kill", "kill9", "kill-9" -> KILL;
                case "rolling", "restart", "rolling-restart" -> ROLLING;
                default -> throw new IllegalArgumentException("none, kill or rolling: " + text);
            };
        }
    }

    /**
     * What a run is.
     *
     * @param transport {@code websocket} or {@code long-polling}: the subscribers'; the publisher uses websocket
     * @param fault what happens to the cluster
     * @param recovery history on the channels, weft-recovery.js on every official client, weft.js's own recovery on
     *        every weft.js client (without, weft.js runs with {@code recover: false})
     * @param clients which client the subscribers are
     * @param subscribers how many; subscriber i listens to channel i % channels
     * @param channels the channels the publisher spreads its messages over
     * @param rate messages a second, all channels together
     * @param faultAt how long into the publishing the fault starts
     * @param after how long the publishing goes on once the fault is over (a restarted node taken back)
     * @param drain how long a node drains on SIGTERM (LoadServer {@code --drain})
     * @param npmPrefix a folder whose node_modules holds cometd and cometd-nodejs-client ({@link NodeClients})
     * @param haproxyConfig the documented HAProxy configuration (cluster-redis/haproxy.cfg)
     * @param recoveryScript weft-recovery.js, used with {@code recovery}, with the weft.js it imports beside it, used
     *        by weft.js subscribers
     * @param dir where the run's logs go
     */
    record Settings(String transport, Fault fault, boolean recovery, Clients clients, int subscribers, int channels,
            int rate, Duration faultAt, Duration after, Duration drain, Path npmPrefix, Path haproxyConfig,
            Path recoveryScript, Path dir) {
        Settings {
            if (!transport.equals("websocket") && !transport.equals("long-polling")) {
                throw new IllegalArgumentException("websocket or long-polling: " + transport);
            }
            if (recovery && clients != Clients.WEFT && !Files.isRegularFile(recoveryScript)) {
                throw new IllegalArgumentException("recovery needs the extension, and there is no " + recoveryScript);
            }
            if (clients != Clients.COMETD && !Files.isRegularFile(weftScript(recoveryScript))) {
                throw new IllegalArgumentException("weft.js subscribers need " + weftScript(recoveryScript));
            }
        }

        /** weft.js, beside the extension. */
        private static Path weftScript(Path recoveryScript) {
            return recoveryScript.toAbsolutePath().resolveSibling("weft.js");
        }
    }

    private LossRun() {
    }

    /** Runs it: starts everything, makes the fault, stops everything; what the subscribers counted. */
    static LossResult run(Settings settings) throws Exception {
        Files.createDirectories(settings.dir());
        List<String> serverArguments = new ArrayList<>(List.of("--drain=" + settings.drain().toMillis() + "ms"));
        if (settings.recovery()) {
            serverArguments.add("--option=history=" + HISTORY);
        }
        Path script = settings.npmPrefix().resolve("loss.mjs");
        try (InputStream source = LossRun.class.getResourceAsStream("loss.mjs")) {
            Files.copy(source, script, StandardCopyOption.REPLACE_EXISTING);
        }
        try (LossCluster cluster = LossCluster.start(settings.dir(), settings.haproxyConfig(), serverArguments);
                Script subscribers = new Script(subscribers(settings, script, cluster), settings, "subscribers");
                Script publisher = new Script(publisher(settings, script, cluster), settings, "publisher")) {
            subscribers.await("READY", Duration.ofSeconds(120));
            publisher.await("READY", Duration.ofSeconds(30));
            subscribers.await("WARMED", Duration.ofSeconds(70));
            publisher.send("GO");
            String publishing = publisher.await("PUBLISHING ", Duration.ofSeconds(10)).trim();
            subscribers.send("PUBLISHING " + publishing);
            sleepUntil(Long.parseLong(publishing) + settings.faultAt().toMillis());
            switch (settings.fault()) {
                case NONE -> {
                }
                case KILL -> {
                    subscribers.send(fault("kill -9 a"));
                    cluster.node("a").kill();
                }
                case ROLLING -> {
                    for (String name : List.of("a", "b")) {
                        subscribers.send(fault("SIGTERM " + name));
                        LossNode restarted = cluster.node(name);
                        restarted.terminate(Duration.ofSeconds(90));
                        restarted.start();
                        cluster.awaitServer(name, true, LossCluster.WITHIN);
                    }
                }
            }
            sleepUntil(System.currentTimeMillis() + settings.after().toMillis());
            publisher.send("STOP");
            subscribers.send("END " + publisher.await("PUBLISHED ", Duration.ofSeconds(90)));
            return LossResult.of(settings, JSON.readTree(subscribers.await("REPORT ", Duration.ofSeconds(90))));
        }
    }

    /** A FAULT line: the fault is made now. */
    private static String fault(String label) {
        return "FAULT " + System.currentTimeMillis() + " " + label;
    }

    /**
     * weft-recovery.js with the scripts beside it (it imports weft.js) copied into a folder of ES modules under the npm
     * prefix, where Node loads them as modules; returns the folder.
     */
    private static Path browserModules(Settings settings) throws IOException {
        Path modules = Files.createDirectories(settings.npmPrefix().resolve("weft-static"));
        Files.writeString(modules.resolve("package.json"), "{\"type\": \"module\"}\n");
        try (Stream<Path> scripts = Files.list(settings.recoveryScript().toAbsolutePath().getParent())) {
            for (Path source : scripts.filter(file -> file.toString().endsWith(".js")).toList()) {
                Files.copy(source, modules.resolve(source.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return modules;
    }

    private static List<String> subscribers(Settings settings, Path script, LossCluster cluster) throws IOException {
        List<String> command = new ArrayList<>(List.of("node", script.getFileName().toString(), "role=subscribers",
                "front=" + cluster.frontUrl(), "transport=" + settings.transport(),
                "subscribers=" + settings.subscribers(), "channels=" + settings.channels(), "prefix=" + PREFIX,
                "clients=" + settings.clients().label));
        if (settings.recovery() || settings.clients() != Clients.COMETD) {
            Path modules = browserModules(settings);
            command.add("weft=" + modules.resolve("weft.js"));
            if (settings.recovery()) {
                command.add("recovery=" + modules.resolve(settings.recoveryScript().getFileName()));
            }
        }
        return command;
    }

    private static List<String> publisher(Settings settings, Path script, LossCluster cluster) {
        return List.of("node", script.getFileName().toString(), "role=publisher", "publish=" + cluster.publishUrl(),
                "channels=" + settings.channels(), "rate=" + settings.rate(), "prefix=" + PREFIX);
    }

    private static void sleepUntil(long epochMillis) throws InterruptedException {
        long left = epochMillis - System.currentTimeMillis();
        if (left > 0) {
            Thread.sleep(left);
        }
    }

    /** A process of loss.mjs in one role: its lines, its stdin, its output in ROLE.log. */
    private static final class Script implements AutoCloseable {
        private static final String ENDED = "(loss.mjs ended)";

        private final Process process;
        private final Writer stdin;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final Path log;

        Script(List<String> command, Settings settings, String role) throws IOException {
            log = settings.dir().resolve(role + ".log");
            process = new ProcessBuilder(command)
                    .directory(settings.npmPrefix().toFile())
                    .redirectErrorStream(true)
                    .start();
            stdin = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
            Thread reader = new Thread(this::read, "loss-" + role);
            reader.setDaemon(true);
            reader.start();
        }

        void send(String line) throws IOException {
            stdin.write(line + "\n");
            stdin.flush();
        }

        /** The rest of the first line that starts with {@code prefix}; a FAIL line or the end of the process fails. */
        String await(String prefix, Duration within) throws Exception {
            long deadline = System.nanoTime() + within.toNanos();
            while (true) {
                String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new IllegalStateException("no " + prefix.strip() + " from loss.mjs within "
                            + within.toSeconds() + " s; see " + log);
                }
                if (line.startsWith(prefix)) {
                    return line.substring(prefix.length());
                }
                if (line.startsWith("FAIL") || line.equals(ENDED)) {
                    throw new IllegalStateException("loss.mjs: " + line + "; see " + log);
                }
            }
        }

        private void read() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
                    PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    out.println(line);
                    out.flush();
                    lines.add(line);
                }
            } catch (IOException ended) {
                // the process went away
            }
            lines.add(ENDED);
        }

        /** Gives the process a moment to end by itself (it does after its last line), then kills it. */
        @Override
        public void close() {
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException x) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
