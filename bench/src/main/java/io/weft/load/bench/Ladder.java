package io.weft.load.bench;

import io.weft.load.CsvFile;
import io.weft.load.LatencyChart;
import io.weft.load.ProcessStats;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The rate ladder (experiments 1, 2 and 5 of docs/benchmarks): the chat load at rising offered rates until the
 * server's knee. Each rung sends bursts of {@code burst} messages, each to a random room from a random member of that
 * room, on a fixed schedule: a warm-up, then a measured window (the latency of the messages meant to be sent in it,
 * from that intended time, so a sender falling behind shows as latency; and the deliveries that arrived in it), then
 * a drain of up to 5 s for the window's late messages. A first, unrecorded rung warms the JITs of client and server
 * at the first rate. The ladder stops at the knee ({@link LadderStep#pastKnee}). Each rung appends a CSV row
 * ({@link LadderStep}) and, with an hlog folder, leaves its latency histogram there for {@code latency-chart}. Runs on
 * the calling thread.
 */
final class Ladder {
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(5);

    /**
     * What to climb, and where the results go. Immutable; nonsense is refused here.
     *
     * @param server the server's name in the CSV ({@code weft}, {@code cometd}, {@code faye})
     * @param transport how the clients reach it
     * @param clients how many clients; client {@code i} is in room {@code i % rooms}
     * @param rooms how many rooms
     * @param size about how many bytes each message's data takes
     * @param rates the offered rates, deliveries per second, in order
     * @param prewarmMs the unrecorded first rung's length (0: none)
     * @param prewarmRate the unrecorded first rung's offered rate (0: the first of {@code rates})
     * @param warmupMs each rung's warm-up
     * @param measureMs each rung's measured window
     * @param burst messages per burst (they leave one by one; a burst shares its intended send time)
     * @param kneeP99Ms the p99 past which a rung is past the knee
     * @param label the CSV's label column, and the hlog file names' suffix
     * @param serverPid the server's process id, for its CPU (-1: not measured)
     * @param csv the CSV file rows are appended to
     * @param hlogDir where each rung's histogram goes, or null
     */
    record Plan(String server, ChatTransport transport, int clients, int rooms, int size, List<Long> rates,
            long prewarmMs, long prewarmRate, long warmupMs, long measureMs, int burst, double kneeP99Ms, String label,
            long serverPid, Path csv, Path hlogDir) {
        Plan {
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(transport, "transport");
            Objects.requireNonNull(csv, "csv");
            label = label == null ? "" : label;
            rates = List.copyOf(rates);
            atLeast("clients", clients, 1);
            atLeast("rooms", rooms, 1);
            if (rooms > clients) {
                throw new IllegalArgumentException("more rooms (" + rooms + ") than clients (" + clients + ")");
            }
            atLeast("size", size, 0);
            if (rates.isEmpty() || rates.stream().anyMatch(rate -> rate < 1)) {
                throw new IllegalArgumentException("rates must be at least 1 delivery per second: " + rates);
            }
            atLeast("prewarm", prewarmMs, 0);
            atLeast("prewarm rate", prewarmRate, 0);
            atLeast("warm-up", warmupMs, 0);
            atLeast("measured window", measureMs, 1);
            atLeast("burst", burst, 1);
            if (label.contains(",")) {
                throw new IllegalArgumentException("a label is a CSV cell, without commas: " + label);
            }
        }

        private static void atLeast(String name, long value, long min) {
            if (value < min) {
                throw new IllegalArgumentException(name + " must be at least " + min + ", was " + value);
            }
        }

        /** Clients per room, as the publisher is picked: at least one. */
        int perRoom() {
            return Math.max(1, clients / rooms);
        }

        /**
         * The histogram file of the rung at {@code offered}:
         * {@code <server>-<transport>-<clients>c-<rooms>r-<size>B-<offered>[-<label>].hlog}.
         */
        String hlogName(long offered) {
            String suffix = label.isEmpty() ? "" : "-" + label.replaceAll("[^A-Za-z0-9._-]", "_");
            return String.format(Locale.ROOT, "%s-%s-%dc-%dr-%dB-%d%s.hlog", server, transport.connectionType(),
                    clients, rooms, size, offered, suffix);
        }
    }

    /** A rung's numbers and its latencies (ns). */
    private record Rung(LadderStep step, Histogram latencies) {
    }

    private final Plan plan;
    private final PrintStream out;
    private final PrintStream log;
    private final StepWindow window = new StepWindow();
    private final String padding;

    /** Rows go to {@code out} as they are measured; progress and the knee to {@code log}. */
    Ladder(Plan plan, PrintStream out, PrintStream log) {
        this.plan = plan;
        this.out = out;
        this.log = log;
        // {"t":1234567890123456,"p":"..."} is about size bytes.
        this.padding = "x".repeat(Math.max(1, plan.size() - 30));
    }

    /** What the clients of this ladder report their arrivals to. */
    ChatLoad.Arrivals arrivals() {
        return window;
    }

    /** Climbs, on clients opened with {@link #arrivals()}; returns the recorded rungs. */
    List<LadderStep> climb(ChatLoad load) throws IOException, InterruptedException {
        log.printf("%s %s (%s): %d clients ready%n", plan.server(), plan.transport().connectionType(),
                plan.transport().lean() ? "lean client" : "io.weft.client", plan.clients());
        Thread.sleep(500);
        SplittableRandom random = new SplittableRandom(42);
        if (plan.prewarmMs() > 0) {
            log.println("prewarm: " + rung(load, random, plan.prewarmRate() > 0 ? plan.prewarmRate() : plan.rates().get(0),
                    plan.prewarmMs()).step().csvRow(plan));
            Thread.sleep(1000);
        }
        List<LadderStep> steps = new ArrayList<>();
        for (long offered : plan.rates()) {
            Rung rung = rung(load, random, offered, plan.warmupMs());
            steps.add(rung.step());
            record(offered, rung);
            Thread.sleep(1000);
            if (rung.step().pastKnee(plan.kneeP99Ms())) {
                log.printf(Locale.ROOT, "knee reached at %d offered (delivered %.0f, p99 %.1f ms, lost %.1f%%)%n",
                        offered, rung.step().deliveredPerSecond(), rung.step().p99Ms(), rung.step().lostPercent());
                break;
            }
        }
        return steps;
    }

    private void record(long offered, Rung rung) throws IOException {
        String row = rung.step().csvRow(plan);
        CsvFile.append(plan.csv(), LadderStep.HEADER, row);
        if (plan.hlogDir() != null) {
            Files.createDirectories(plan.hlogDir());
            LatencyChart.writeLog(plan.hlogDir().resolve(plan.hlogName(offered)), rung.latencies(), "ns");
        }
        out.println(row);
        out.flush();
    }

    /** One rung: sends on schedule through the warm-up and the window, then drains. */
    private Rung rung(ChatLoad load, SplittableRandom random, long offered, long warmupMs) throws InterruptedException {
        double publishRate = (double) offered / plan.perRoom();
        long burstPeriod = (long) (1e9 * plan.burst() / publishRate);
        long start = System.nanoTime();
        long windowStart = start + TimeUnit.MILLISECONDS.toNanos(warmupMs);
        long windowEnd = windowStart + TimeUnit.MILLISECONDS.toNanos(plan.measureMs());
        window.open(windowStart, windowEnd);
        long expected = 0;
        Snapshot atStart = null;
        for (long next = start; next < windowEnd; next += burstPeriod) {
            waitUntil(next);
            if (atStart == null && System.nanoTime() >= windowStart) {
                atStart = snapshot(load);
            }
            for (int b = 0; b < plan.burst(); b++) {
                int room = random.nextInt(plan.rooms());
                int from = Math.min(room + plan.rooms() * random.nextInt(plan.perRoom()), plan.clients() - 1);
                load.publish(from, room, next, padding);
                if (next >= windowStart) {
                    expected += subscribers(room, plan.rooms(), plan.clients());
                }
            }
        }
        Snapshot atEnd = snapshot(load);
        if (atStart == null) {
            atStart = atEnd;
        }
        long windowNanos = System.nanoTime() - windowStart;
        long deadline = System.nanoTime() + DRAIN_NANOS;
        while (window.received() < expected && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        window.close();
        Histogram latencies = window.latencies();
        long delivered = atEnd.arrivals - atStart.arrivals;
        long serverCpu = atStart.serverCpu < 0 || atEnd.serverCpu < 0 ? -1 : atEnd.serverCpu - atStart.serverCpu;
        long clientCpu = atStart.clientCpu < 0 || atEnd.clientCpu < 0 ? -1 : atEnd.clientCpu - atStart.clientCpu;
        LadderStep step = new LadderStep(offered, publishRate, delivered * 1e9 / windowNanos, expected,
                window.received(), millis(latencies.getValueAtPercentile(50)),
                millis(latencies.getValueAtPercentile(90)), millis(latencies.getValueAtPercentile(99)),
                millis(latencies.getMaxValue()), ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                serverCpu < 0 ? Double.NaN : 100.0 * serverCpu / windowNanos,
                serverCpu < 0 || delivered == 0 ? Double.NaN : serverCpu / 1000.0 / delivered,
                clientCpu < 0 ? Double.NaN : 100.0 * clientCpu / windowNanos);
        if (atStart.batches != null && atEnd.batches != null) {
            // What the clients paid for what they got: a client's cost goes with the batches it handles.
            long requests = atEnd.batches[0] - atStart.batches[0];
            long responses = atEnd.batches[1] - atStart.batches[1];
            log.printf(Locale.ROOT, "%d offered: clients wrote %.0f and read %.0f batches/s, %.2f messages per batch"
                    + " read%n", offered, requests * 1e9 / windowNanos, responses * 1e9 / windowNanos,
                    responses == 0 ? 0.0 : (double) delivered / responses);
        }
        return new Rung(step, latencies);
    }

    /** Arrivals, both processes' CPU and the clients' batches (or null) at one moment. */
    private record Snapshot(long arrivals, long serverCpu, long clientCpu, long[] batches) {
    }

    private Snapshot snapshot(ChatLoad load) {
        return new Snapshot(window.arrivals(), ProcessStats.cpuNanos(plan.serverPid()),
                ProcessStats.cpuNanos(ProcessStats.self()), load.batches());
    }

    /** How many of clients {@code [0, clients)} are in room {@code room}: those with {@code i % rooms == room}. */
    static int subscribers(int room, int rooms, int clients) {
        return (clients - room + rooms - 1) / rooms;
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    private static void waitUntil(long deadline) {
        long remaining;
        while ((remaining = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(remaining);
        }
    }
}
