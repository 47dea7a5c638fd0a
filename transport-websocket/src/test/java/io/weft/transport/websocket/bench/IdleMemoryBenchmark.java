package io.weft.transport.websocket.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Bytes of server heap per idle WebSocket session. Not a test (surefire never runs it): run it by hand, as
 * docs/benchmarks/websocket-idle-memory.md shows.
 *
 * <p>The server ({@link IdleMemoryServer}) and the clients ({@link IdleMemoryClient}) run in separate JVMs, so the
 * clients' memory is not counted; the server measures its own heap through its {@code MemoryMXBean} after full
 * collections. Steps: start the server; warm it up with 200 sessions that then go away (classes loaded, pools and
 * caches filled); wait until they have expired; measure the baseline; open N idle sessions (handshaken, a
 * {@code /meta/connect} held); measure again; report (after - baseline) / N, and the classes whose instances grew the
 * most between the two class histograms ({@code jcmd GC.class_histogram}).
 *
 * <p>Arguments: {@code n [deflate: false|true] [mount: embedded|servlet|netty] [bind addresses: 127.0.0.2,127.0.0.3,...]}.
 */
public final class IdleMemoryBenchmark {
    private IdleMemoryBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        boolean deflate = args.length > 1 && Boolean.parseBoolean(args[1]);
        String mount = args.length > 2 ? args[2] : "embedded";
        String binds = args.length > 3 ? args[3] : null;
        String classPath = System.getProperty("java.class.path");
        Path out = Path.of("target", "idle-memory");
        Files.createDirectories(out);

        Child server = Child.start("server", List.of("java", "-Xms2g", "-Xmx2g", "-XX:+UseG1GC", "-cp", classPath,
                IdleMemoryServer.class.getName(), mount));
        try {
            int port = Integer.parseInt(server.await("PORT ").split(" ")[1]);
            warmUp(server, port, classPath);

            long baseline = heap(server.ask("gc", "HEAP "));
            Map<String, long[]> before = histogram(server.pid(), out.resolve("histogram-baseline.txt"));

            List<String> clientCommand = new ArrayList<>(List.of("java", "-Xmx3g", "-cp", classPath,
                    IdleMemoryClient.class.getName(), String.valueOf(port), String.valueOf(n), String.valueOf(deflate)));
            if (binds != null) {
                clientCommand.add(binds);
            }
            Child client = Child.start("client", clientCommand);
            try {
                String ready = client.await("READY ");
                String counts = server.ask("count", "SESSIONS ");
                String measured = server.ask("gc", "HEAP ");
                long after = heap(measured);
                Map<String, long[]> loaded = histogram(server.pid(), out.resolve("histogram-loaded.txt"));

                double perSession = (after - baseline) / (double) n;
                StringBuilder report = new StringBuilder();
                report.append(String.format(Locale.ROOT, "sessions: %d (client: %s; server: %s)%n", n, ready, counts));
                report.append(String.format(Locale.ROOT, "mount: %s; permessage-deflate offered: %s%n", mount, deflate));
                report.append(String.format(Locale.ROOT, "heap after full GC: baseline %,d B, loaded %,d B%n",
                        baseline, after));
                report.append(String.format(Locale.ROOT, "per idle session: %,.0f B = %.2f KB (goal <= 6.8 KB)%n",
                        perSession, perSession / 1024));
                report.append(growth(before, loaded, n));
                System.out.print(report);
                Files.writeString(out.resolve("report.txt"), report);
                client.send("quit");
                client.waitFor();
            } finally {
                client.destroy();
            }
            server.send("quit");
            server.waitFor();
        } finally {
            server.destroy();
        }
    }

    /** 200 sessions come and go, then expire: what is left is start-up state, not per-session state. */
    private static void warmUp(Child server, int port, String classPath) throws Exception {
        Child client = Child.start("warm-up", List.of("java", "-cp", classPath, IdleMemoryClient.class.getName(),
                String.valueOf(port), "200", "false"));
        client.await("READY ");
        client.send("quit");
        client.waitFor();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!server.ask("count", "SESSIONS ").startsWith("SESSIONS 0 SOCKETS 0")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("warm-up sessions did not expire");
            }
            Thread.sleep(1000);
        }
    }

    private static long heap(String line) {
        return Long.parseLong(line.split(" ")[1]);
    }

    /** {@code jcmd <pid> GC.class_histogram}, saved, as class name to {instances, bytes}. */
    private static Map<String, long[]> histogram(long pid, Path file) throws IOException, InterruptedException {
        Process jcmd = new ProcessBuilder("jcmd", String.valueOf(pid), "GC.class_histogram")
                .redirectErrorStream(true).start();
        String text = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        jcmd.waitFor();
        Files.writeString(file, text);
        Map<String, long[]> classes = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length >= 4 && parts[0].endsWith(":")) {
                classes.put(parts[3], new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])});
            }
        }
        return classes;
    }

    private static String growth(Map<String, long[]> before, Map<String, long[]> after, int n) {
        record Row(String name, long instances, long bytes) {
        }
        List<Row> rows = new ArrayList<>();
        after.forEach((name, counts) -> {
            long[] was = before.getOrDefault(name, new long[2]);
            rows.add(new Row(name, counts[0] - was[0], counts[1] - was[1]));
        });
        rows.sort((a, b) -> Long.compare(b.bytes(), a.bytes()));
        long total = rows.stream().mapToLong(Row::bytes).sum();
        StringBuilder table = new StringBuilder();
        table.append(String.format(Locale.ROOT, "histogram growth: %,d B in all = %.0f B per session; top classes:%n",
                total, total / (double) n));
        table.append(String.format(Locale.ROOT, "%12s %12s %9s %9s  %s%n", "instances", "bytes", "inst/sess",
                "B/sess", "class"));
        for (Row row : rows.subList(0, Math.min(30, rows.size()))) {
            table.append(String.format(Locale.ROOT, "%12d %12d %9.2f %9.1f  %s%n", row.instances(), row.bytes(),
                    row.instances() / (double) n, row.bytes() / (double) n, row.name()));
        }
        return table.toString();
    }

    /** A child JVM whose stdout is read line by line. */
    private static final class Child {
        private final String name;
        private final Process process;
        private final BufferedReader out;
        private final PrintWriter in;

        private Child(String name, Process process) {
            this.name = name;
            this.process = process;
            this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            this.in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        }

        static Child start(String name, List<String> command) throws IOException {
            List<String> full = new ArrayList<>(command);
            String logging = System.getProperty("logback.configurationFile");
            if (logging != null) {
                full.add(1, "-Dlogback.configurationFile=" + logging);
            }
            return new Child(name, new ProcessBuilder(full).redirectError(ProcessBuilder.Redirect.INHERIT).start());
        }

        long pid() {
            return process.pid();
        }

        String await(String prefix) throws IOException {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith(prefix)) {
                    return line;
                }
                System.out.println("[" + name + "] " + line);
            }
            throw new IllegalStateException(name + " ended before printing " + prefix);
        }

        String ask(String command, String prefix) throws IOException {
            send(command);
            return await(prefix);
        }

        void send(String command) {
            in.println(command);
        }

        void waitFor() throws InterruptedException {
            process.waitFor();
        }

        void destroy() {
            process.destroy();
        }
    }
}
