package io.weft.server.bench;

import io.weft.bayeux.Message;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.internal.stats.Counters;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * What getStats()' counters add to the delivery of a message, on both cores at once (as two transport threads
 * writing frames would): per publish one {@code System.nanoTime()} (the stamp its copies carry); per frame written
 * {@link Counters#written} (a reply check per message, one clock read, a latency record per delivery, a delivery
 * count) and {@link Counters#bytesWritten}. Divided by a delivered message's whole server CPU cost, measured by the
 * load runs, it is the stats' share of that cost. Run by {@code bench/stats-cost.sh}, never by the tests.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(2)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class StatsCostBenchmark {
    private final Counters counters = new Counters();
    private List<Message> frameOfOne;
    private List<Message> frameOfTen;

    @Setup
    public void deliveries() {
        frameOfOne = frame(1);
        frameOfTen = frame(10);
    }

    /** Deliveries as a chat room's publish makes them: channel, data, id, stamped when published. */
    private static List<Message> frame(int size) {
        List<Message> frame = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            MessageImpl message = new MessageImpl();
            message.setChannel("/chat/demo/7");
            message.setId(String.valueOf(1000 + i));
            message.setData(Map.of("user", "ada", "chat", "x".repeat(50)));
            frame.add(message.publishedAt(System.nanoTime()).freeze());
        }
        return frame;
    }

    /** The stamp each publish takes. */
    @Benchmark
    public long publishStamp() {
        return System.nanoTime();
    }

    /** A websocket frame of one delivery: what the stats add to it. */
    @Benchmark
    public void frameOfOneDelivery() {
        counters.written("websocket", frameOfOne);
        counters.bytesWritten("websocket", 120);
    }

    /** A frame of ten deliveries (a busy socket, or a long-poll response). */
    @Benchmark
    public void frameOfTenDeliveries() {
        counters.written("websocket", frameOfTen);
        counters.bytesWritten("websocket", 1200);
    }

    public static void main(String[] args) throws RunnerException {
        new Runner(new OptionsBuilder().include(StatsCostBenchmark.class.getName()).build()).run();
    }
}
