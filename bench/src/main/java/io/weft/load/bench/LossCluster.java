package io.weft.load.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;

/**
 * The cluster of a loss run, all on loopback: a redis-server without persistence; nodes {@code a} and {@code b}
 * (Weft's load server, {@code --redis} to it) behind HAProxy on the documented configuration
 * (cluster-redis/haproxy.cfg, only its ports changed and a stats socket added, through which the run sees when
 * HAProxy takes a node back); and node {@code p}, in the same cluster but not behind HAProxy, which the publisher
 * uses: the run measures what subscribers lose, and no fault touches the publisher. Needs {@code redis-server} and
 * {@code haproxy} on the PATH.
 */
final class LossCluster implements AutoCloseable {
    static final Duration WITHIN = Duration.ofSeconds(30);

    private final Path dir;
    private final List<Process> helpers = new ArrayList<>();
    private final List<LossNode> nodes = new ArrayList<>();
    private int redisPort;
    private int frontPort;
    private Path statsSocket;

    private LossCluster(Path dir) {
        this.dir = dir;
    }

    /**
     * Starts Redis, the three nodes (each with {@code serverArguments}, LoadServer flags) and HAProxy on
     * {@code haproxyConfig}; logs and Redis's folder go to {@code dir}.
     */
    static LossCluster start(Path dir, Path haproxyConfig, List<String> serverArguments) throws Exception {
        Files.createDirectories(dir);
        LossCluster cluster = new LossCluster(dir.toAbsolutePath());
        try {
            cluster.startRedis();
            List<String> arguments = new ArrayList<>(List.of("--redis=redis://127.0.0.1:" + cluster.redisPort,
                    "--extensions=none", "--max-threads=64"));
            arguments.addAll(serverArguments);
            List<CompletableFuture<Void>> ready = new ArrayList<>();
            for (String name : List.of("a", "b", "p")) {
                LossNode node = new LossNode(name, freePort(), arguments, dir.resolve("node-" + name + ".log"));
                cluster.nodes.add(node);
                ready.add(node.launch());
            }
            for (int i = 0; i < ready.size(); i++) {
                cluster.nodes.get(i).awaitReady(ready.get(i));
            }
            cluster.startHaproxy(haproxyConfig);
            cluster.awaitServer("a", true, WITHIN);
            cluster.awaitServer("b", true, WITHIN);
            return cluster;
        } catch (Exception x) {
            cluster.close();
            throw x;
        }
    }

    /** The balancer's Bayeux URL, where subscribers go. */
    String frontUrl() {
        return "http://127.0.0.1:" + frontPort + "/cometd";
    }

    /** Node {@code p}'s Bayeux URL, the publisher's. */
    String publishUrl() {
        return "http://127.0.0.1:" + node("p").port() + "/cometd";
    }

    /** Node {@code a}, {@code b} or {@code p}. */
    LossNode node(String name) {
        return nodes.stream().filter(node -> node.name().equals(name)).findFirst().orElseThrow();
    }

    /** Waits until HAProxy's checks say that backend server {@code name} is up (or down), at most {@code within}. */
    void awaitServer(String name, boolean up, Duration within) throws Exception {
        String wanted = up ? "UP" : "DOWN";
        await(() -> wanted.equals(serverStatus(name)), within, "HAProxy to see node " + name + " " + wanted);
    }

    /** The status HAProxy's stats give backend server {@code name} ({@code UP}, {@code DOWN}, ...). */
    String serverStatus(String name) throws IOException {
        String stats = haproxyCommand("show stat");
        List<String> header = null;
        for (String line : stats.split("\n")) {
            if (line.startsWith("# ")) {
                header = Arrays.asList(line.substring(2).split(","));
            } else if (header != null && line.startsWith("nodes," + name + ",")) {
                String status = line.split(",", -1)[header.indexOf("status")];
                return status.startsWith("UP") ? "UP" : status.startsWith("DOWN") ? "DOWN" : status;
            }
        }
        throw new IOException("no backend server nodes/" + name + " in HAProxy's stats: " + stats);
    }

    @Override
    public void close() {
        for (LossNode node : nodes) {
            node.close();
        }
        for (Process helper : helpers) {
            helper.destroy();
            try {
                if (!helper.waitFor(5, TimeUnit.SECONDS)) {
                    helper.destroyForcibly();
                    helper.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException x) {
                helper.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private void startRedis() throws Exception {
        redisPort = freePort();
        Path data = Files.createDirectories(dir.resolve("redis"));
        helpers.add(new ProcessBuilder("redis-server", "--port", String.valueOf(redisPort), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", data.toString(), "--daemonize", "no")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start());
        await(() -> redisAnswers(redisPort), WITHIN, "redis-server to answer PING on " + redisPort);
    }

    /**
     * HAProxy on the documented configuration: its front and two servers moved to this run's ports (the text must
     * have them where the README puts them), a stats socket added to its global section.
     */
    private void startHaproxy(Path documented) throws Exception {
        frontPort = freePort();
        statsSocket = dir.resolve("haproxy.sock");
        Files.deleteIfExists(statsSocket);
        String text = Files.readString(documented);
        for (String expected : List.of("127.0.0.1:8080", "127.0.0.1:8081", "127.0.0.1:8082", "global\n")) {
            if (!text.contains(expected)) {
                throw new IOException(documented + " has no '" + expected.strip() + "' any more: update LossCluster");
            }
        }
        text = text.replace("127.0.0.1:8080", "127.0.0.1:" + frontPort)
                .replace("127.0.0.1:8081", "127.0.0.1:" + node("a").port())
                .replace("127.0.0.1:8082", "127.0.0.1:" + node("b").port())
                .replaceFirst("(?m)^global\n", Matcher.quoteReplacement("global\n    stats socket " + statsSocket
                        + " mode 600 level user\n"));
        Path config = dir.resolve("haproxy.cfg");
        Files.writeString(config, text);
        Process haproxy = new ProcessBuilder("haproxy", "-db", "-f", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("haproxy.log").toFile())
                .start();
        helpers.add(haproxy);
        await(() -> !haproxy.isAlive() || (accepts(frontPort) && Files.exists(statsSocket)), WITHIN,
                "HAProxy to listen on " + frontPort);
        if (!haproxy.isAlive()) {
            throw new IOException("HAProxy did not start: " + Files.readString(dir.resolve("haproxy.log")));
        }
    }

    private String haproxyCommand(String command) throws IOException {
        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(statsSocket))) {
            channel.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.US_ASCII)));
            ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            StringBuilder answer = new StringBuilder();
            while (channel.read(buffer) >= 0) {
                buffer.flip();
                answer.append(StandardCharsets.US_ASCII.decode(buffer));
                buffer.clear();
            }
            return answer.toString();
        }
    }

    private static boolean redisAnswers(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] answer = in.readNBytes(7);
            return new String(answer, StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException notYet) {
            return false;
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** A condition that may fail while what it looks at starts; false until it answers. */
    interface Check {
        boolean holds() throws Exception;
    }

    static void await(Check check, Duration within, String what) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            boolean holds;
            try {
                holds = check.holds();
            } catch (IOException notYet) {
                holds = false;
            }
            if (holds) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("waited " + within.toSeconds() + " s for " + what);
            }
            Thread.sleep(50);
        }
    }
}
