package io.weft.load.bench;

import java.util.Locale;

/**
 * One rung of the rate ladder as measured, and its CSV row. Rates are counted in deliveries per second (a publish to
 * a room of ten is ten deliveries). The columns are read by name by {@code bench/ratios.py}, the {@code chart}
 * command and docs/benchmarks: {@link #HEADER} does not change lightly.
 *
 * @param offered the offered rate, deliveries per second
 * @param publishPerSecond the publish rate that offers it
 * @param deliveredPerSecond what arrived during the measured window, per second
 * @param expected deliveries the window's publishes should make
 * @param received deliveries of the window's publishes that arrived (late ones included, up to the drain's end)
 * @param p50Ms the received messages' median latency, from their intended send time, ms
 * @param p90Ms their 90th percentile, ms
 * @param p99Ms their 99th percentile, ms
 * @param maxMs their maximum, ms
 * @param loadAverage the machine's one-minute load average at the end
 * @param serverCpuPercent the server's CPU over the window, % of one core (NaN without its process id)
 * @param serverCpuMicrosPerMessage the server's CPU per message delivered in the window, µs (NaN likewise)
 * @param clientCpuPercent this load client's CPU over the window, % of one core: near 100, the step measured the
 *     client
 */
record LadderStep(long offered, double publishPerSecond, double deliveredPerSecond, long expected, long received,
        double p50Ms, double p90Ms, double p99Ms, double maxMs, double loadAverage, double serverCpuPercent,
        double serverCpuMicrosPerMessage, double clientCpuPercent) {
    static final String HEADER = "server,transport,clients,rooms,size,offered_per_s,publish_per_s,"
            + "delivered_per_s,expected,received,lost_pct,p50_ms,p90_ms,p99_ms,max_ms,load_avg,label,server_cpu_pct,"
            + "server_cpu_us_per_msg,client_cpu_pct";

    /** The share of expected deliveries that did not arrive, %. */
    double lostPercent() {
        return expected == 0 ? 0 : 100.0 * Math.max(0, expected - received) / expected;
    }

    /**
     * Whether this rung is past the knee, where the ladder stops: delivered below 90% of offered, p99 above
     * {@code kneeP99Ms}, or more than 1% lost.
     */
    boolean pastKnee(double kneeP99Ms) {
        return deliveredPerSecond < 0.9 * offered || p99Ms > kneeP99Ms || lostPercent() > 1.0;
    }

    /** The CSV row, under {@link #HEADER}. */
    String csvRow(Ladder.Plan plan) {
        return String.format(Locale.ROOT,
                "%s,%s,%d,%d,%d,%d,%.1f,%.0f,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%s,%.1f,%.2f,%.1f",
                plan.server(), plan.transport().connectionType(), plan.clients(), plan.rooms(), plan.size(), offered,
                publishPerSecond, deliveredPerSecond, expected, received, lostPercent(), p50Ms, p90Ms, p99Ms, maxMs,
                loadAverage, plan.label(), serverCpuPercent, serverCpuMicrosPerMessage, clientCpuPercent);
    }
}
