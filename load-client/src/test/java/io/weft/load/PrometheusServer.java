package io.weft.load;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code prometheus} (2.42), started by a test on a configuration and storage path of its own in a temporary
 * folder, on a free loopback port, scraping one target every second and evaluating the given rule file every second;
 * stopped by {@link #close()}. Needs {@code prometheus} on the PATH ({@code .ci/run} installs it) or
 * {@code -Dweft.prometheus=/path/to/prometheus}.
 */
final class PrometheusServer implements AutoCloseable {
    private static final String BINARY = System.getProperty("weft.prometheus", "prometheus");
    private final Process process;
    private final URI uri;
    private final Path log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private PrometheusServer(Process process, URI uri, Path log) {
        this.process = process;
        this.uri = uri;
        this.log = log;
    }

    /** Starts one scraping {@code target}'s {@code /metrics} (job {@code weft}) with {@code rules}; waits until ready. */
    static PrometheusServer start(Path folder, String target, Path rules) throws Exception {
        Files.createDirectories(folder);
        Path config = folder.resolve("prometheus.yml");
        Files.writeString(config, String.join("\n",
                "global:",
                "  scrape_interval: 1s",
                "  evaluation_interval: 1s",
                "rule_files:",
                "  - " + rules.toAbsolutePath().normalize(),
                "scrape_configs:",
                "  - job_name: weft",
                "    metrics_path: /metrics",
                "    static_configs:",
                "      - targets: ['" + target + "']",
                ""));
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Path log = folder.resolve("prometheus.log");
        Process process;
        try {
            process = new ProcessBuilder(BINARY, "--config.file=" + config, "--storage.tsdb.path=" + folder.resolve("data"),
                    "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException x) {
            throw new AssertionError("this test needs Debian's prometheus (apt-get install prometheus; .ci/run installs "
                    + "it) or -Dweft.prometheus=/path/to/prometheus: " + x.getMessage(), x);
        }
        PrometheusServer prometheus = new PrometheusServer(process, URI.create("http://127.0.0.1:" + port), log);
        prometheus.awaitReady();
        return prometheus;
    }

    private void awaitReady() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("prometheus ended (exit " + process.exitValue() + "): " + log());
            }
            try {
                if (http.send(HttpRequest.newBuilder(uri.resolve("/-/ready")).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            process.waitFor(100, TimeUnit.MILLISECONDS);
        }
        close();
        throw new AssertionError("prometheus was not ready within 30 s: " + log());
    }

    URI uri() {
        return uri;
    }

    /** The body of {@code GET /api/v1/<path>?<query>}. */
    String api(String pathAndQuery) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri.resolve("/api/v1/" + pathAndQuery))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    String log() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException x) {
            return "(no log: " + x + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
