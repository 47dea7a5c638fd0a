package io.weft.load.bench;

import com.fasterxml.jackson.databind.JsonNode;
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
 * One loss run (issue 27): subscribers of the official CometD JavaScript client (loss.mjs, in Node) reach two Weft
 * nodes through HAProxy ({@link LossCluster}), a publisher numbers {@code rate} messages a second across the
 * channels, a fault is made at {@code faultAt} into the publishing, and each subscriber counts what it lost, got twice
 * or got out of order. With {@code recovery}, the nodes keep history on the run's channels ({@code --option=history=})
 * and every subscriber runs weft-recovery.js: then nothing may be lost.
 */
final class LossRun {
    /** The channels' prefix, and the history rule that covers them. */
    static final String PREFIX = "/loss";
    static final String HISTORY = PREFIX + "/**";

    private static final ObjectMapper JSON = new ObjectMapper();

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
     * @param recovery history on the channels and weft-recovery.js on every subscriber
     * @param subscribers how many; subscriber i listens to channel i % channels
     * @param channels the channels the publisher spreads its messages over
     * @param rate messages a second, all channels together
     * @param faultAt how long into the publishing the fault starts
     * @param after how long the publishing goes on once the fault is over (a restarted node taken back)
     * @param npmPrefix a folder whose node_modules holds cometd and cometd-nodejs-client ({@link NodeClients})
     * @param haproxyConfig the documented HAProxy configuration (cluster-redis/haproxy.cfg)
     * @param recoveryScript weft-recovery.js, used with {@code recovery}
     * @param dir where the run's logs go
     */
    record Settings(String transport, Fault fault, boolean recovery, int subscribers, int channels, int rate,
            Duration faultAt, Duration after, Path npmPrefix, Path haproxyConfig, Path recoveryScript, Path dir) {
        Settings {
            if (!transport.equals("websocket") && !transport.equals("long-polling")) {
                throw new IllegalArgumentException("websocket or long-polling: " + transport);
            }
            if (recovery && !Files.isRegularFile(recoveryScript)) {
                throw new IllegalArgumentException("recovery needs the extension, and there is no " + recoveryScript);
            }
        }
    }

    private LossRun() {
    }

    /** Runs it: starts everything, makes the fault, stops everything; what the subscribers counted. */
    static LossResult run(Settings settings) throws Exception {
        Files.createDirectories(settings.dir());
        List<String> serverArguments = settings.recovery() ? List.of("--option=history=" + HISTORY) : List.of();
        Path script = settings.npmPrefix().resolve("loss.mjs");
        try (InputStream source = LossRun.class.getResourceAsStream("loss.mjs")) {
            Files.copy(source, script, StandardCopyOption.REPLACE_EXISTING);
        }
        try (LossCluster cluster = LossCluster.start(settings.dir(), settings.haproxyConfig(), serverArguments);
                Subscribers node = new Subscribers(command(settings, script, cluster), settings)) {
            long publishing = node.awaitPublishing();
            sleepUntil(publishing + settings.faultAt().toMillis());
            switch (settings.fault()) {
                case NONE -> {
                }
                case KILL -> {
                    node.fault("kill -9 a");
                    cluster.node("a").kill();
                }
                case ROLLING -> {
                    for (String name : List.of("a", "b")) {
                        node.fault("SIGTERM " + name);
                        LossNode restarted = cluster.node(name);
                        restarted.terminate(Duration.ofSeconds(90));
                        restarted.start();
                        cluster.awaitServer(name, true, LossCluster.WITHIN);
                    }
                }
            }
            sleepUntil(System.currentTimeMillis() + settings.after().toMillis());
            return LossResult.of(settings, node.stop());
        }
    }

    /**
     * weft-recovery.js with the scripts beside it (it imports weft.js) copied into a folder of ES modules under the npm
     * prefix, where Node loads them as modules; returns the copy of the extension.
     */
    private static Path recoveryModules(Settings settings) throws IOException {
        Path modules = Files.createDirectories(settings.npmPrefix().resolve("weft-static"));
        Files.writeString(modules.resolve("package.json"), "{\"type\": \"module\"}\n");
        try (Stream<Path> scripts = Files.list(settings.recoveryScript().toAbsolutePath().getParent())) {
            for (Path source : scripts.filter(file -> file.toString().endsWith(".js")).toList()) {
                Files.copy(source, modules.resolve(source.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return modules.resolve(settings.recoveryScript().getFileName());
    }

    private static List<String> command(Settings settings, Path script, LossCluster cluster) throws IOException {
        List<String> command = new ArrayList<>(List.of("node", script.getFileName().toString(),
                "front=" + cluster.frontUrl(), "publish=" + cluster.publishUrl(),
                "transport=" + settings.transport(), "subscribers=" + settings.subscribers(),
                "channels=" + settings.channels(), "rate=" + settings.rate(), "prefix=" + PREFIX, "max-seconds=900"));
        if (settings.recovery()) {
            command.add("recovery=" + recoveryModules(settings));
        }
        return command;
    }

    private static void sleepUntil(long epochMillis) throws InterruptedException {
        long left = epochMillis - System.currentTimeMillis();
        if (left > 0) {
            Thread.sleep(left);
        }
    }

    /** The Node process of loss.mjs: its protocol lines, its stdin for FAULT and STOP, its output in node.log. */
    private static final class Subscribers implements AutoCloseable {
        private final Process process;
        private final Writer stdin;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final Path log;

        Subscribers(List<String> command, Settings settings) throws IOException {
            log = settings.dir().resolve("node.log");
            process = new ProcessBuilder(command)
                    .directory(settings.npmPrefix().toFile())
                    .redirectErrorStream(true)
                    .start();
            stdin = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
            Thread reader = new Thread(this::read, "loss-subscribers");
            reader.setDaemon(true);
            reader.start();
        }

        /** Waits for PUBLISHING: every subscriber has its subscription; returns when the numbering started. */
        long awaitPublishing() throws Exception {
            return Long.parseLong(await("PUBLISHING ", Duration.ofSeconds(150)).trim());
        }

        /** Tells the subscribers that a fault is made now. */
        void fault(String label) throws IOException {
            stdin.write("FAULT " + System.currentTimeMillis() + " " + label + "\n");
            stdin.flush();
        }

        /** Stops the publisher and returns the subscribers' report. */
        JsonNode stop() throws Exception {
            stdin.write("STOP\n");
            stdin.flush();
            return JSON.readTree(await("REPORT ", Duration.ofSeconds(90)));
        }

        /** The rest of the first line that starts with {@code prefix}; a FAIL line or the end of the process fails. */
        private String await(String prefix, Duration within) throws Exception {
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

        private static final String ENDED = "(loss.mjs ended)";

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

        /** Gives the process a moment to end by itself (it does after REPORT), then kills it. */
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
