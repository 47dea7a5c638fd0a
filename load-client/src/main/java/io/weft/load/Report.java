package io.weft.load;

import io.weft.server.api.Latency;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * The text report of a run, in the classic load tool's shape: outgoing rate, arrivals, incoming rate, the latency
 * distribution curve (a bar per bucket with its bound and count, percentiles marked where they fall) and the latency
 * percentiles. Prints only; the numbers come from {@link Scenario.Outcome}, {@link Measurement} and
 * {@link LatencySummary}.
 */
final class Report {
    private static final int BAR_WIDTH = 50;
    private static final double[] MARKS = {50, 85, 95, 99, 99.9};

    private Report() {
    }

    static void outgoing(PrintStream out, RunConfig run, Scenario.Outcome sent) {
        long nanos = Math.max(1, sent.elapsedNanos());
        out.printf("Outgoing: Elapsed = %d ms | Rate = %d messages/s - %d requests/s - ~%.3f Mib/s%n",
                TimeUnit.NANOSECONDS.toMillis(nanos),
                sent.messages() * 1_000_000_000L / nanos,
                sent.requests() * 1_000_000_000L / nanos,
                sent.messages() * run.messageSize() * 8.0 * 1_000_000_000L / nanos / 1024 / 1024);
    }

    static void progress(PrintStream out, long arrived, long expected) {
        out.printf("Waiting for messages to arrive %d/%d%n", arrived, expected);
    }

    static void arrivals(PrintStream out, RunConfig run, Scenario.Outcome sent, Measurement measured) {
        long messages = measured.messages();
        out.printf("Messages - Success/Expected = %d/%d%n", messages, sent.expected());
        out.printf("Messages - Duplicates = %d | Publish failures = %d%n", measured.duplicates(),
                sent.publishFailures().sum());
        long nanos = measured.incomingNanos();
        if (nanos > 0) {
            out.printf("Incoming - Elapsed = %d ms | Rate = %d messages/s - %d responses/s (%.2f%%) - ~%.3f Mib/s%n",
                    TimeUnit.NANOSECONDS.toMillis(nanos),
                    messages * 1_000_000_000L / nanos,
                    measured.responses() * 1_000_000_000L / nanos,
                    messages == 0 ? 0.0 : 100.0 * measured.responses() / messages,
                    messages * run.messageSize() * 8.0 * 1_000_000_000L / nanos / 1024 / 1024);
        }
    }

    static void latency(PrintStream out, LatencySummary latency) {
        if (latency.samples() == 0) {
            out.println("Messages - Latency: no samples");
            return;
        }
        out.println("Messages - Latency Distribution Curve (X axis: Frequency, Y axis: Latency):");
        long peak = latency.buckets().stream().mapToLong(LatencySummary.Bucket::count).max().orElse(1);
        long cumulative = 0;
        int mark = 0;
        for (LatencySummary.Bucket bucket : latency.buckets()) {
            cumulative += bucket.count();
            int length = (int) Math.round((double) bucket.count() / Math.max(1, peak) * BAR_WIDTH);
            StringBuilder marks = new StringBuilder();
            while (mark < MARKS.length && 100.0 * cumulative / latency.samples() >= MARKS[mark]) {
                marks.append(" ^").append(format(MARKS[mark])).append('%');
                mark++;
            }
            out.printf("%-" + BAR_WIDTH + "s _ %,10d µs (%d, %.2f%%)%s%n", "@".repeat(Math.max(length, 0)),
                    bucket.upTo(), bucket.count(), 100.0 * bucket.count() / latency.samples(), marks);
        }
        out.printf("Messages - Latency: %d samples | min/avg/50th%%/90th%%/99th%%/99.9th%%/max = "
                        + "%,d/%,.0f/%,d/%,d/%,d/%,d/%,d µs%n",
                latency.samples(), latency.min(), latency.avg(), latency.p50(), latency.p90(), latency.p99(),
                latency.p999(), latency.max());
    }

    /**
     * The server's own latency for the run, from publish to a delivery's hand-over to its connection (a part of the
     * client's, which adds the sender's queue, the network and the receiver), under the client's in the same units.
     */
    static void serverLatency(PrintStream out, Latency server) {
        if (server == null) {
            out.println("Server - Latency: no /stats (not a Weft server with its MetricsHandler at the root)");
            return;
        }
        out.printf("Server - Latency (publish to write): %d deliveries | avg/50th%%/90th%%/99th%%/99.9th%%/max = "
                        + "%,.0f/%,.0f/%,.0f/%,.0f/%,.0f/%,.0f µs%n",
                server.count(), server.mean() * 1000, server.p50() * 1000, server.p90() * 1000, server.p99() * 1000,
                server.p999() * 1000, server.max() * 1000);
    }

    private static String format(double percent) {
        return percent == Math.rint(percent) ? String.valueOf((long) percent) : String.valueOf(percent);
    }
}
