package io.weft.transport.longpoll;

import io.weft.server.api.ServerOptions;
import io.weft.transport.longpoll.PollingServer.Mount;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Measures what a parked long-poll session costs the server: heap used after a full GC with N sessions parked, minus
 * the same before, divided by N; and which classes the difference is made of. Not a test: run it by hand (see
 * docs/benchmarks/longpoll-idle-memory.md). The clients run in a child JVM ({@link ParkedPollClients}).
 *
 * <p>Options: {@code --sessions N} (5000), {@code --mount handler|servlet} (handler), {@code --header-cache N} and
 * {@code --input-buffer N} (Jetty's HttpConfiguration headerCacheSize and inputBufferSize; by default 0 and 4096, as
 * {@link LongPollingConnectors} recommends; Jetty's own defaults are 1024 and 8192), {@code --subscribe true|false}
 * (true: each session subscribes to one shared channel), {@code --sources K} (1).
 */
public final class ParkedPollMemory {
    private ParkedPollMemory() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>(Map.of("sessions", "5000", "mount", "handler",
                "header-cache", "0", "input-buffer", "4096", "subscribe", "true", "sources", "1"));
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        int sessions = Integer.parseInt(options.get("sessions"));
        Mount mount = Mount.valueOf(options.get("mount").toUpperCase(Locale.ROOT));
        HttpConfiguration http = PollingServer.httpConfiguration();
        http.setHeaderCacheSize(Integer.parseInt(options.get("header-cache")));
        http.setInputBufferSize(Integer.parseInt(options.get("input-buffer")));

        // Polls stay parked for the whole run; the idle timeout is Jetty's default.
        ServerOptions bayeux = ServerOptions.builder().timeout(600_000).maxInterval(600_000)
                .maxSessionsPerAddress(Integer.MAX_VALUE)
                .maxConnectionsPerAddress(Integer.MAX_VALUE).build(); // every client is on 127.0.0.1
        try (PollingServer server = PollingServer.start(mount, bayeux, 30_000, new QueuedThreadPool(), http, false)) {
            warmUp(server);
            Map<String, long[]> before = histogram();
            long baseline = usedAfterGc();
            long directBefore = directMemory();

            Process clients = startClients(server, sessions, options);
            try {
                waitForParked(server, clients, sessions);
                long used = usedAfterGc();
                Map<String, long[]> after = histogram();
                report(options, sessions, baseline, used, before, after);
                System.out.printf(Locale.ROOT, "direct (off-heap) buffer memory: %.1f MB before, %.1f MB with the sessions "
                        + "parked%n", directBefore / 1048576.0, directMemory() / 1048576.0);
            } finally {
                clients.getOutputStream().close();
                if (!clients.waitFor(30, TimeUnit.SECONDS)) {
                    clients.destroy();
                }
            }
        }
    }

    /** Loads the classes and fills the pools that any first request needs, so the baseline is a warm server. */
    private static void warmUp(PollingServer server) throws Exception {
        for (int i = 0; i < 50; i++) {
            try (RawHttp connection = new RawHttp(server.uri())) {
                connection.post("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                        + "\"supportedConnectionTypes\":[\"long-polling\"]}]", null);
                connection.read();
            }
        }
    }

    private static Process startClients(PollingServer server, int sessions, Map<String, String> options)
            throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-Xmx1g", "-cp", System.getProperty("java.class.path"),
                ParkedPollClients.class.getName(), server.uri().toString(), String.valueOf(sessions),
                options.get("subscribe"), options.get("sources"));
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        return builder.start();
    }

    private static void waitForParked(PollingServer server, Process clients, int sessions) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(clients.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.startsWith("PARKED")) {
            System.out.println("clients: " + line);
        }
        if (line == null) {
            throw new IllegalStateException("the client process ended before parking its sessions");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (server.waitingRequests() < sessions || server.bayeux().getSessions().size() < sessions) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("only " + server.waitingRequests() + " of " + sessions + " parked");
            }
            Thread.sleep(50);
        }
    }

    /** Memory of direct byte buffers (Jetty's pooled I/O buffers live there), outside the heap. */
    private static long directMemory() {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
    }

    /** Heap in use after full collections, once it stops shrinking. */
    private static long usedAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            System.gc();
            Thread.sleep(100);
            long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            if (now >= used) {
                return Math.min(now, used);
            }
            used = now;
        }
        return used;
    }

    /** Class name to {instances, bytes}, from the JVM's own class histogram (which runs a full GC first). */
    private static Map<String, long[]> histogram() throws Exception {
        String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        Map<String, long[]> classes = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length >= 4 && parts[0].endsWith(":")) {
                classes.put(parts[3], new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])});
            }
        }
        return classes;
    }

    private static String owner(String className) {
        String name = className.replaceFirst("^\\[+L", "");
        if (name.startsWith("org.eclipse.jetty.")) {
            return "Jetty";
        }
        if (name.startsWith("io.weft.")) {
            return "Weft";
        }
        return "JDK (byte[], String, collections, locks, sockets: shared by both)";
    }

    private static void report(Map<String, String> options, int sessions, long baseline, long used,
            Map<String, long[]> before, Map<String, long[]> after) {
        System.out.printf(Locale.ROOT, "options: %s%n", new java.util.TreeMap<>(options));
        System.out.printf(Locale.ROOT, "java: %s, max heap %d MB%n", System.getProperty("java.version"),
                Runtime.getRuntime().maxMemory() >> 20);
        System.out.printf(Locale.ROOT, "heap used after GC: baseline %.1f MB, with %d parked sessions %.1f MB%n",
                baseline / 1048576.0, sessions, used / 1048576.0);
        System.out.printf(Locale.ROOT, "per parked session: %.1f KB%n", (used - baseline) / 1024.0 / sessions);
        Map<String, long[]> delta = new HashMap<>();
        after.forEach((name, counts) -> {
            long[] was = before.getOrDefault(name, new long[2]);
            delta.put(name, new long[] {counts[0] - was[0], counts[1] - was[1]});
        });
        Map<String, Long> byOwner = new java.util.TreeMap<>();
        delta.forEach((name, counts) -> byOwner.merge(owner(name), counts[1], Long::sum));
        System.out.println("per session, by whose classes (JDK arrays, strings and collections are counted apart):");
        byOwner.forEach((owner, bytes) -> System.out.printf(Locale.ROOT, "%10.0f B  %s%n", (double) bytes / sessions,
                owner));
        System.out.println("largest per-session differences in the class histogram (bytes and instances per session):");
        delta.entrySet().stream()
                .sorted(Comparator.comparingLong((Map.Entry<String, long[]> e) -> e.getValue()[1]).reversed())
                .limit(25)
                .forEach(e -> System.out.printf(Locale.ROOT, "%10.0f B %8.2f  %s%n",
                        (double) e.getValue()[1] / sessions, (double) e.getValue()[0] / sessions, e.getKey()));
    }
}
