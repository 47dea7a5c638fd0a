package io.weft.examples.chat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The demo's main class in a JVM of its own, as a user starts it (the test's class path): its output is read line by
 * line on a thread of its own. {@link #close} stops it (SIGTERM, then SIGKILL); {@link #kill} kills it at once.
 */
final class DemoProcess implements AutoCloseable {
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private DemoProcess(Process process) {
        this.process = process;
        Thread reader = new Thread(this::read, "demo-output-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * {@code ChatDemo args}, with standard error merged into the output; {@code --drain=0} unless {@code args} name a
     * drain window, so that {@link #close} stops it at once.
     */
    static DemoProcess start(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ChatDemo.class.getName()));
        command.addAll(List.of(args));
        if (command.stream().noneMatch(arg -> arg.startsWith("--drain="))) {
            command.add("--drain=0");
        }
        return new DemoProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    private void read() {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                lines.add(line);
            }
        } catch (IOException x) {
            // "Stream closed": the process ended and the JDK closed its output under this reader, so the output is
            // over (a test that waits for a line it never got says so itself)
        }
    }

    /** The first line of output that starts with {@code prefix}, within {@code seconds}; null if none came. */
    String line(String prefix, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
            String line = lines.poll(left, TimeUnit.NANOSECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
        }
        return null;
    }

    /** The port of its {@code READY port=<n>} line, which must come within 30 s. */
    int port() throws InterruptedException {
        String ready = line("READY port=", 30);
        if (ready == null || !ready.matches("READY port=\\d+")) {
            throw new AssertionError("the demo did not print READY port=<n> within 30 s: " + ready);
        }
        return Integer.parseInt(ready.substring("READY port=".length()));
    }

    /** Its exit code, once it ended within 10 s. */
    int exitCode() throws InterruptedException {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("the demo is still running");
        }
        return process.exitValue();
    }

    /** The lines printed and not taken yet (for a failure's message). */
    String rest() {
        List<String> rest = new ArrayList<>();
        lines.drainTo(rest);
        return String.join("\n", rest);
    }

    /**
     * SIGTERM, without waiting for it to end: its shutdown hook runs, and what it prints is still read
     * ({@code Process.destroy()} closes the pipes from this side first).
     */
    void terminate() {
        process.toHandle().destroy();
    }

    /** SIGKILL: no goodbye to anyone (its sockets close with the process); returns once it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("the demo " + process.pid() + " did not die");
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            kill();
        }
    }
}
