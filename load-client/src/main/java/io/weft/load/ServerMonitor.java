package io.weft.load;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The load server's view of its own JVM during a run: process CPU (averaged over the run, as a share of all cores,
 * and in nanoseconds), heap, resident memory, and each garbage collector's collections and time.
 * {@link #start(String)} and {@link #stop(String)} are called by the load service when a client starts and stops a
 * run, each run under its own key (the session that started it), so that load clients whose runs overlap each get
 * their own; thread-safe.
 */
final class ServerMonitor {
    private record Snapshot(long wallNanos, long cpuNanos, Map<String, long[]> gc, MemoryUsage heap) {
    }

    /** Runs started and not stopped; the oldest are forgotten past {@link #MAX_RUNS} (a client that never stops). */
    private static final int MAX_RUNS = 64;

    private final Map<String, Snapshot> started = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Snapshot> eldest) {
            return size() > MAX_RUNS;
        }
    };

    synchronized void start(String run) {
        started.put(run, snapshot());
    }

    /**
     * What changed since {@code run} was {@link #start(String) started} (nothing, over no time, for a run not
     * started), as the lines the server prints and sends back to the client.
     */
    synchronized Map<String, Object> stop(String run) {
        Snapshot end = snapshot();
        Snapshot begin = started.remove(run);
        if (begin == null) {
            begin = end;
        }
        int cores = Runtime.getRuntime().availableProcessors();
        long wall = Math.max(1, end.wallNanos - begin.wallNanos);
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("elapsedMillis", wall / 1_000_000);
        report.put("elapsedNanos", wall);
        if (end.cpuNanos >= 0 && begin.cpuNanos >= 0) {
            report.put("cpuPercent", round(100.0 * (end.cpuNanos - begin.cpuNanos) / wall / cores));
            report.put("cpuNanos", end.cpuNanos - begin.cpuNanos);
        }
        report.put("cores", cores);
        report.put("loadAverage", round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
        report.put("heapUsedStartMiB", mib(begin.heap.getUsed()));
        report.put("heapUsedEndMiB", mib(end.heap.getUsed()));
        report.put("heapCommittedMiB", mib(end.heap.getCommitted()));
        report.put("heapMaxMiB", mib(end.heap.getMax()));
        report.put("heapUsedEndBytes", end.heap.getUsed());
        report.put("rssBytes", ProcessStats.rssBytes(ProcessStats.self()));
        Map<String, Object> gc = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> collector : end.gc.entrySet()) {
            long[] before = begin.gc.getOrDefault(collector.getKey(), new long[2]);
            gc.put(collector.getKey(), Map.of("collections", collector.getValue()[0] - before[0],
                    "millis", collector.getValue()[1] - before[1]));
        }
        report.put("gc", gc);
        return report;
    }

    /** The report in one line per topic, for the console. */
    static List<String> lines(Map<?, ?> report) {
        StringBuilder gc = new StringBuilder();
        if (report.get("gc") instanceof Map<?, ?> collectors) {
            for (Map.Entry<?, ?> collector : collectors.entrySet()) {
                Map<?, ?> numbers = (Map<?, ?>) collector.getValue();
                if (gc.length() > 0) {
                    gc.append(" | ");
                }
                gc.append(collector.getKey()).append(": ").append(numbers.get("collections")).append(" collections, ")
                        .append(numbers.get("millis")).append(" ms");
            }
        }
        return List.of(
                String.format(Locale.ROOT, "Server - Elapsed = %s ms | CPU = %s%% of %s cores | load average = %s",
                        report.get("elapsedMillis"), report.get("cpuPercent"), report.get("cores"),
                        report.get("loadAverage")),
                String.format(Locale.ROOT, "Server - Heap: used %s MiB at start, %s MiB at end, %s MiB committed, "
                        + "%s MiB max", report.get("heapUsedStartMiB"), report.get("heapUsedEndMiB"),
                        report.get("heapCommittedMiB"), report.get("heapMaxMiB")),
                "Server - GC: " + gc);
    }

    private static Snapshot snapshot() {
        Map<String, long[]> gc = new LinkedHashMap<>();
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            gc.put(collector.getName(), new long[] {collector.getCollectionCount(), collector.getCollectionTime()});
        }
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        long cpu = os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
        return new Snapshot(System.nanoTime(), cpu, gc, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage());
    }

    private static long mib(long bytes) {
        return bytes < 0 ? -1 : bytes / (1024 * 1024);
    }

    private static double round(double value) {
        return Math.round(value * 10) / 10.0;
    }
}
