package io.weft.cluster.redis;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@code redis-server} of the test's own on a free loopback port, without persistence, in a temporary directory:
 * started before each test and stopped after it ({@code @RegisterExtension}). {@link #kill()} and {@link #restart()}
 * take it away and bring it back on the same port. Needs Debian's {@code redis-server} on the PATH (or its path in
 * {@code -Dweft.redisServer=}); {@code .ci/run} installs it.
 */
public final class RedisServer implements BeforeEachCallback, AfterEachCallback {
    private static final long READY_WITHIN_MILLIS = 10_000;

    private final List<String> options;
    private Path dir;
    private int port;
    private Process process;

    public RedisServer() {
        this(List.of());
    }

    /** A server started with these {@code redis-server} options besides the port, directory and no persistence. */
    RedisServer(List<String> options) {
        this.options = List.copyOf(options);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        open();
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        close();
    }

    /** Makes the directory, takes a free port and starts the server. */
    void open() throws IOException, InterruptedException {
        dir = Files.createTempDirectory("weft-redis");
        port = freePort();
        restart();
    }

    /** Kills the server and deletes its directory. */
    void close() throws IOException, InterruptedException {
        kill();
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    /** {@code redis://127.0.0.1:port}. */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** Stops the server at once (SIGKILL: no goodbye to its clients), and waits until it is gone. */
    public void kill() throws InterruptedException {
        Process running = process;
        process = null;
        if (running != null) {
            running.destroyForcibly();
            if (!running.waitFor(10, TimeUnit.SECONDS)) {
                throw new AssertionError("redis-server " + running.pid() + " did not stop");
            }
        }
    }

    /** Starts the server on its port (again), and waits until it answers PING. */
    public void restart() throws IOException, InterruptedException {
        if (process != null) {
            throw new IllegalStateException("running already");
        }
        String binary = System.getProperty("weft.redisServer", "redis-server");
        List<String> line = new ArrayList<>(List.of(binary, "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no"));
        line.addAll(options);
        ProcessBuilder command = new ProcessBuilder(line)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()));
        try {
            process = command.start();
        } catch (IOException x) {
            throw new AssertionError("these tests need Debian's redis-server (apt-get install redis-server) or "
                    + "-Dweft.redisServer=/path/to/redis-server: " + x.getMessage(), x);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_WITHIN_MILLIS);
        while (!answersPing()) {
            if (!process.isAlive() || System.nanoTime() - deadline > 0) {
                throw new AssertionError("redis-server did not start on port " + port + ": "
                        + Files.readString(dir.resolve("redis.log")));
            }
            Thread.sleep(10);
        }
    }

    /** Runs one command with {@code redis-cli}-like plain RESP and returns the reply's lines. */
    List<String> command(String... args) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            socket.setSoTimeout(2000);
            StringBuilder request = new StringBuilder("*" + args.length + "\r\n");
            for (String arg : args) {
                request.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n")
                        .append(arg).append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return Resp.read(socket.getInputStream());
        }
    }

    private boolean answersPing() {
        try {
            return command("PING").equals(List.of("PONG"));
        } catch (IOException notYet) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Just enough RESP2 to read a status, an integer or an array of bulk strings, flattened to lines. */
    private static final class Resp {
        static List<String> read(InputStream in) throws IOException {
            String line = line(in);
            return switch (line.charAt(0)) {
                case '+', ':' -> List.of(line.substring(1));
                case '-' -> throw new IOException("Redis error: " + line.substring(1));
                case '*' -> {
                    int count = Integer.parseInt(line.substring(1));
                    String[] items = new String[Math.max(count, 0)];
                    for (int i = 0; i < items.length; i++) {
                        items[i] = String.join(" ", read(in));
                    }
                    yield List.of(items);
                }
                case '$' -> {
                    int length = Integer.parseInt(line.substring(1));
                    if (length < 0) {
                        yield List.of();
                    }
                    byte[] bulk = in.readNBytes(length + 2);
                    yield List.of(new String(bulk, 0, length, StandardCharsets.UTF_8));
                }
                default -> throw new IOException("not RESP: " + line);
            };
        }

        private static String line(InputStream in) throws IOException {
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != '\r') {
                if (c < 0) {
                    throw new IOException("closed");
                }
                line.append((char) c);
            }
            in.read();
            return line.toString();
        }
    }
}
