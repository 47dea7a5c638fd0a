package io.weft.server.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log lines of one kind of expected failure that any peer can cause at will (a frame that is not JSON, a body
 * over {@code maxMessageSize}), written so that a peer repeating it cannot flood the log: the first occurrence at INFO
 * in full, later ones within the interval only counted (and written at DEBUG), and at most one INFO summary per
 * interval, {@code "412 more frames that were not Bayeux batches in the last 60 s"}.
 *
 * <p>The summary is written with the first occurrence after the interval has passed (this class has no timer): a
 * burst that stops is summed up when the next occurrence of its kind comes. An occurrence after a quiet interval is
 * written in full again.
 *
 * <p>Use one instance per kind and per server, shared by all its connections. Thread-safe; an occurrence that is only
 * counted allocates nothing (pass arguments the caller already holds).
 */
public final class QuietLog {
    /** The interval between two INFO lines of one kind, unless given. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(60);

    private final Logger logger;
    private final String kind;
    private final long intervalNanos;
    private final LongSupplier nanoTime;
    /** When the next INFO line may be written, in {@link #nanoTime} units; whoever moves it writes that line. */
    private final AtomicLong nextLine;
    /** Occurrences since the last INFO line that were only counted. */
    private final AtomicLong counted = new AtomicLong();
    /** When the last INFO line was written; only the thread that moved {@link #nextLine} writes it. */
    private volatile long lastLine;

    /**
     * @param owner the class whose logger writes the lines (usually the one that meets the failure)
     * @param kind the failure in the plural, as the summary names it: {@code "frames that were not Bayeux batches"}
     */
    public QuietLog(Class<?> owner, String kind) {
        this(owner, kind, DEFAULT_INTERVAL, System::nanoTime);
    }

    /** As {@link #QuietLog(Class, String)}, with the interval and the clock ({@link System#nanoTime()}) given. */
    public QuietLog(Class<?> owner, String kind, Duration interval, LongSupplier nanoTime) {
        this(LoggerFactory.getLogger(owner), kind, interval, nanoTime);
    }

    /** For tests: the lines go to {@code logger}. */
    QuietLog(Logger logger, String kind, Duration interval, LongSupplier nanoTime) {
        this.logger = Objects.requireNonNull(logger, "logger");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.intervalNanos = interval.toNanos();
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException("interval must be positive: " + interval);
        }
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        long now = nanoTime.getAsLong();
        this.nextLine = new AtomicLong(now);
        this.lastLine = now;
    }

    /** One occurrence, described by an SLF4J {@code format} with one argument. */
    public void log(String format, Object arg) {
        log(format, arg, null, 1);
    }

    /** One occurrence, described by an SLF4J {@code format} with two arguments. */
    public void log(String format, Object arg1, Object arg2) {
        log(format, arg1, arg2, 2);
    }

    private void log(String format, Object arg1, Object arg2, int args) {
        long now = nanoTime.getAsLong();
        long next = nextLine.get();
        // Read before the line is claimed: an occurrence another thread counts while this one claims it (it lost the
        // same race) belongs to the next line. Taking all with getAndSet(0) after the claim once turned the very first
        // line into a summary of such losers ("24 more ... in the last 1 s"; QuietLogTest, under load).
        long more = counted.get();
        if (now - next < 0 || !nextLine.compareAndSet(next, now + intervalNanos)) {
            counted.incrementAndGet();
            debug(format, arg1, arg2, args);
            return;
        }
        long since = lastLine;
        lastLine = now;
        counted.addAndGet(-more);
        if (more == 0) {
            if (args == 1) {
                logger.info(format, arg1);
            } else {
                logger.info(format, arg1, arg2);
            }
        } else {
            // This occurrence is one of the "more": its details go to DEBUG like the others'.
            logger.info("{} more {} in the last {} s", more + 1, kind, Math.max(1, (now - since) / 1_000_000_000L));
            debug(format, arg1, arg2, args);
        }
    }

    private void debug(String format, Object arg1, Object arg2, int args) {
        if (args == 1) {
            logger.debug(format, arg1);
        } else {
            logger.debug(format, arg1, arg2);
        }
    }

    @Override
    public String toString() {
        return "QuietLog[" + kind + "]";
    }
}
