package io.weft.load.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One node of a loss run: Weft's load server ({@code io.weft.load.LoadServer}) in a JVM of its own on the harness's
 * classpath, on a fixed loopback port so that it comes back where the balancer expects it. Its output is appended to
 * a log file; {@link #start} waits for its {@code READY} line. {@link #kill} is a crash ({@code SIGKILL}),
 * {@link #terminate} what a deploy does ({@code SIGTERM}, then waiting for the process to end).
 */
final class LossNode implements AutoCloseable {
    private static final Duration READY_WITHIN = Duration.ofSeconds(60);

    private final String name;
    private final int port;
    private final List<String> arguments;
    private final Path log;
    private Process process;

    /** Node {@code name} on {@code port}, started with these LoadServer arguments besides the host and port. */
    LossNode(String name, int port, List<String> arguments, Path log) {
        this.name = name;
        this.port = port;
        this.arguments = List.copyOf(arguments);
        this.log = log;
    }

    String name() {
        return name;
    }

    int port() {
        return port;
    }

    /** Starts the JVM; {@link #awaitReady} waits for it. */
    synchronized CompletableFuture<Void> launch() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("node " + name + " runs already");
        }
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-Xms64m", "-Xmx512m", "-XX:+UseG1GC", "-Djava.awt.headless=true",
                "-cp", System.getProperty("java.class.path")));
        String logging = System.getProperty("logback.configurationFile");
        if (logging != null) {
            command.add("-Dlogback.configurationFile=" + logging);
        }
        command.add("io.weft.load.LoadServer");
        command.add("--host=127.0.0.1");
        command.add("--port=" + port);
        command.addAll(arguments);
        Files.writeString(log, "== " + String.join(" ", command) + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<Void> ready = new CompletableFuture<>();
        Process started = process;
        Thread reader = new Thread(() -> copy(started, ready), "loss-node-" + name);
        reader.setDaemon(true);
        reader.start();
        return ready;
    }

    /** Starts the node and waits until it listens. */
    void start() throws Exception {
        awaitReady(launch());
    }

    void awaitReady(CompletableFuture<Void> ready) throws Exception {
        try {
            ready.get(READY_WITHIN.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException x) {
            close();
            throw new IOException("node " + name + " did not start within " + READY_WITHIN.toSeconds() + " s; see "
                    + log);
        }
    }

    /** SIGKILL, as a crash: no goodbye to clients or to Redis. Waits until the process is gone. */
    synchronized void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("node " + name + " (" + process.pid() + ") did not die");
            }
        }
    }

    /**
     * SIGTERM, as a deploy stops a node, then waits for it to end by itself within {@code within} (a draining node
     * takes its window); kills it past that. Returns how long it took to end.
     */
    Duration terminate(Duration within) throws InterruptedException {
        Process running;
        synchronized (this) {
            running = process;
        }
        long start = System.nanoTime();
        running.destroy();
        if (!running.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
            running.destroyForcibly();
            running.waitFor(10, TimeUnit.SECONDS);
            throw new IllegalStateException("node " + name + " did not end within " + within.toSeconds()
                    + " s of SIGTERM");
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    @Override
    public synchronized void close() {
        if (process != null && process.isAlive()) {
            try {
                kill();
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Appends the node's output to its log, completing {@code ready} on {@code READY port=}. */
    private void copy(Process from, CompletableFuture<Void> ready) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(from.getInputStream(),
                StandardCharsets.UTF_8));
                PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND))) {
            String line;
            while ((line = lines.readLine()) != null) {
                out.println(line);
                out.flush();
                if (line.startsWith("READY port=")) {
                    ready.complete(null);
                }
            }
        } catch (IOException | RuntimeException x) {
            ready.completeExceptionally(x);
        }
        ready.completeExceptionally(new IOException("node " + name + " ended before it was ready; see " + log));
    }
}
