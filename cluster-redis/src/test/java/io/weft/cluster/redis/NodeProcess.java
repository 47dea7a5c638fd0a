package io.weft.cluster.redis;

import io.weft.cluster.redis.examples.ClusterNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A {@link ClusterNode} in a JVM of its own, on the tests' classpath, so that a test can kill it as a crash would. */
final class NodeProcess implements AutoCloseable {
    private final Process process;
    private final int port;

    NodeProcess(String redisUri) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "-Dlogback.configurationFile=src/test/resources/logback-test.xml",
                ClusterNode.class.getName(), redisUri)
                .redirectErrorStream(true)
                .start();
        CompletableFuture<Integer> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> read(ready), "node-process-output");
        reader.setDaemon(true);
        reader.start();
        try {
            port = ready.get(20, TimeUnit.SECONDS);
        } catch (Exception x) {
            process.destroyForcibly();
            throw new AssertionError("the node process did not start", x);
        }
    }

    int port() {
        return port;
    }

    /** SIGKILL: no goodbye to its clients or to Redis; the kernel closes its sockets. Waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("the node process " + process.pid() + " did not die");
        }
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    /** Passes the node's output on to this JVM's, and {@code READY port=N}'s port to {@code ready}. */
    private void read(CompletableFuture<Integer> ready) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.startsWith("READY port=")) {
                    ready.complete(Integer.parseInt(line.substring("READY port=".length())));
                } else {
                    System.out.println("[node process] " + line);
                }
            }
        } catch (IOException | RuntimeException x) {
            ready.completeExceptionally(x);
        }
        ready.completeExceptionally(new IOException("the node process ended"));
    }
}
