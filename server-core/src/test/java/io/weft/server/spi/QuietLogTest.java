package io.weft.server.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

class QuietLogTest {
    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong clock = new AtomicLong(42 * SECOND);
    private final RecordingLogger logger = new RecordingLogger();
    private QuietLog badFrames;

    @BeforeEach
    void create() {
        badFrames = new QuietLog(logger, "bad frames", Duration.ofSeconds(60), clock::get);
    }

    private List<String> lines(Level level) {
        return logger.lines(level);
    }

    private void seconds(long seconds) {
        clock.addAndGet(seconds * SECOND);
    }

    @Test
    void firstOccurrenceIsWrittenInFullAtInfo() {
        badFrames.log("closing websocket from {}: {}", "/10.0.0.1:5000", "not valid JSON");

        assertEquals(List.of("closing websocket from /10.0.0.1:5000: not valid JSON"), lines(Level.INFO));
        assertEquals(List.of(), lines(Level.DEBUG));
    }

    @Test
    void laterOccurrencesWithinTheIntervalAreOnlyCountedAndWrittenAtDebug() {
        badFrames.log("bad frame from {}", "a");
        seconds(10);
        badFrames.log("bad frame from {}", "b");
        seconds(49);
        badFrames.log("bad frame from {}", "c");

        assertEquals(List.of("bad frame from a"), lines(Level.INFO));
        assertEquals(List.of("bad frame from b", "bad frame from c"), lines(Level.DEBUG));
    }

    @Test
    void firstOccurrenceAfterTheIntervalWritesOneSummaryOfAllSinceTheLastLine() {
        badFrames.log("bad frame from {}", "a");
        for (int i = 0; i < 500; i++) {
            badFrames.log("bad frame from {}", "b");
        }
        seconds(61);
        badFrames.log("bad frame from {}", "c");
        badFrames.log("bad frame from {}", "d");

        assertEquals(List.of("bad frame from a", "501 more bad frames in the last 61 s"), lines(Level.INFO));
        assertEquals(502, lines(Level.DEBUG).size());
    }

    @Test
    void steadyFloodWritesOneSummaryPerInterval() {
        badFrames.log("bad frame from {}", "first");
        for (int second = 1; second <= 180; second++) {
            seconds(1);
            badFrames.log("bad frame from {}", "again");
            badFrames.log("bad frame from {}", "again");
        }

        // Two a second: 120 per interval, but the first interval's first was written in full.
        assertEquals(List.of("bad frame from first", "119 more bad frames in the last 60 s",
                "120 more bad frames in the last 60 s", "120 more bad frames in the last 60 s"), lines(Level.INFO));
    }

    @Test
    void occurrenceAfterAQuietIntervalIsWrittenInFullAgain() {
        badFrames.log("bad frame from {}", "a");
        seconds(3600);
        badFrames.log("bad frame from {}", "b");

        assertEquals(List.of("bad frame from a", "bad frame from b"), lines(Level.INFO));
    }

    @Test
    void kindsAreCountedApart() {
        QuietLog binaryFrames = new QuietLog(logger, "binary frames", Duration.ofSeconds(60), clock::get);
        badFrames.log("bad frame from {}", "a");
        binaryFrames.log("binary frame from {} ({} bytes)", "a", 3);
        binaryFrames.log("binary frame from {} ({} bytes)", "b", 4);
        seconds(60);
        binaryFrames.log("binary frame from {} ({} bytes)", "c", 5);

        assertEquals(List.of("bad frame from a", "binary frame from a (3 bytes)", "2 more binary frames in the last 60 s"),
                lines(Level.INFO));
    }

    @Test
    void concurrentOccurrencesWriteOneLineAndLoseNoCount() throws InterruptedException {
        int threads = 4;
        int each = 10_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException x) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    badFrames.log("bad frame from {}", "x");
                }
            });
            worker.start();
            workers.add(worker);
        }
        logger.threshold(Level.INFO);
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        seconds(60);
        badFrames.log("bad frame from {}", "last");

        assertEquals(List.of("bad frame from x", (threads * each) + " more bad frames in the last 60 s"),
                lines(Level.INFO));
    }
}
