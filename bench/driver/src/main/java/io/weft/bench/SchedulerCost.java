package io.weft.bench;

import io.weft.server.internal.time.ExecutorScheduler;
import io.weft.server.api.Scheduler;

/**
 * The cost of what a long-poll cycle does to the engine's scheduler: schedule a 20 s timer and cancel it, with
 * {@code pending} other timers queued (one per parked session), on {@code threads} threads at once. Run it with one
 * server-core or another first on the classpath to compare them (docs/benchmarks/README.md, "What was fixed").
 *
 * <pre>java -cp [server-core classes:]... io.weft.bench.SchedulerCost [pending] [threads] [seconds]</pre>
 */
public final class SchedulerCost {
    private SchedulerCost() {
    }

    public static void main(String[] args) throws Exception {
        int pending = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        long seconds = args.length > 2 ? Long.parseLong(args[2]) : 5;
        try (Scheduler scheduler = new ExecutorScheduler("cost")) {
            for (int i = 0; i < pending; i++) {
                scheduler.schedule(() -> { }, 600_000 + i);
            }
            for (int round = 0; round < 3; round++) { // the first round warms up the JIT
                long[] counts = new long[threads];
                Thread[] workers = new Thread[threads];
                long end = System.nanoTime() + seconds * 1_000_000_000L;
                for (int t = 0; t < threads; t++) {
                    int me = t;
                    workers[t] = new Thread(() -> {
                        long n = 0;
                        while (System.nanoTime() < end) {
                            for (int k = 0; k < 100; k++) {
                                scheduler.schedule(() -> { }, 20_000).cancel();
                            }
                            n += 100;
                        }
                        counts[me] = n;
                    });
                    workers[t].start();
                }
                long total = 0;
                for (int t = 0; t < threads; t++) {
                    workers[t].join();
                    total += counts[t];
                }
                System.out.printf("round %d: %d schedule+cancel pairs in %d s on %d threads, %.0f ns per pair "
                        + "(wall time x threads / pairs)%n", round, total, seconds, threads,
                        seconds * 1e9 * threads / total);
            }
        }
    }
}
