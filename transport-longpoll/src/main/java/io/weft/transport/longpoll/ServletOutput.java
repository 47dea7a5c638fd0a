package io.weft.transport.longpoll;

import io.weft.bayeux.Promise;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The response body of one {@link ServletExchange}, written without blocking through the one {@link WriteListener}
 * the Servlet API allows per request: a whole response, the chunks of a stream ({@code eventsource}), or heartbeat
 * bytes ahead of a held response. Writes are taken in order; each completes once the container has taken its bytes
 * and flushed them (its stream is ready again), or fails: with the container's error, or with a
 * {@link TimeoutException} when it has not completed within {@code stallMillis} (a client that does not read).
 *
 * <p>Threads. The listener is set on the request's own thread ({@link #install}): set from another thread, Tomcat
 * takes the connection's lock to call it. Writes start on any thread; the container calls the listener on its own.
 * One thread at a time drives the container's stream (whoever finds it idle); a write or a callback that arrives
 * meanwhile is left for that thread, which looks again before it stops. No lock of this class is held while the
 * container's stream is called. Promises complete on the driving thread.
 *
 * <p>The end. Once the exchange is completed the container recycles its request and response, for another connection
 * (Tomcat does), and it completes it by itself after an error callback returns: nothing may touch the stream after
 * either. {@link #close} therefore completes the exchange only once no other thread is driving, waiting for it (a
 * driver is inside one non-blocking call, or completing a promise), and the container's error callbacks end with it.
 */
final class ServletOutput implements WriteListener {
    private static final Logger LOG = LoggerFactory.getLogger(ServletOutput.class);
    /** The longest {@link #close} waits for another thread to stop driving; past it, that thread completes. */
    private static final long CLOSE_WAIT_MILLIS = 2_000;

    private final ServletOutputStream out;
    private final ScheduledExecutorService timer;
    private final long stallMillis;
    /** Ends the exchange: {@code AsyncContext.complete()}, idempotent; run by {@link #close} alone. */
    private final Runnable complete;

    // Guarded by this.
    private final ArrayDeque<Write> writes = new ArrayDeque<>();
    /** The listener is set: the stream may be asked. */
    private boolean installed;
    private Thread driver;
    /** Something happened while a thread was driving: it must look again before it stops. */
    private boolean again;
    private Throwable failure;
    /** Closed: nothing touches the container's stream any more. */
    private boolean closed;
    /** Closed while the driving thread was busy: it completes the exchange when it stops. */
    private boolean completeWhenIdle;

    ServletOutput(ServletOutputStream out, ScheduledExecutorService timer, long stallMillis, Runnable complete) {
        this.out = out;
        this.timer = timer;
        this.stallMillis = stallMillis;
        this.complete = complete;
    }

    /** One write: its bytes, whether it ends the response, and how far it has got. */
    private static final class Write {
        final byte[] bytes;
        final boolean last;
        final Promise<Void> written;
        final AtomicBoolean done = new AtomicBoolean();
        /** 0: not started; 1: bytes handed to the container; 2: flushed (or, the last, nothing to flush). */
        int stage;
        ScheduledFuture<?> stall;

        Write(byte[] bytes, boolean last, Promise<Void> written) {
            this.bytes = bytes;
            this.last = last;
            this.written = written;
        }
    }

    /** Sets the listener; on the request's thread, while the container dispatches it. */
    void install() {
        out.setWriteListener(this);
        synchronized (this) {
            installed = true;
        }
        drive();
    }

    /**
     * Queues {@code bytes} behind the writes in progress; {@code last} ends the response once they are taken.
     * {@code written} completes as said above, on whatever thread gets there.
     */
    void write(byte[] bytes, boolean last, Promise<Void> written) {
        Throwable failed;
        synchronized (this) {
            failed = failure != null ? failure : closed ? new IllegalStateException("the response has ended") : null;
            if (failed == null) {
                writes.addLast(new Write(bytes, last, written));
            }
        }
        if (failed != null) {
            written.fail(failed);
            return;
        }
        drive();
    }

    /** Queues {@code bytes} only if nothing is being written; returns whether it did. */
    boolean writeIfIdle(byte[] bytes, Promise<Void> written) {
        synchronized (this) {
            if (failure != null || closed || !writes.isEmpty()) {
                return false;
            }
            writes.addLast(new Write(bytes, false, written));
        }
        drive();
        return true;
    }

    @Override
    public void onWritePossible() {
        drive();
    }

    @Override
    public void onError(Throwable failure) {
        fail(failure);
    }

    /** Drives the stream while it is ready and writes wait; stops when the container must call back first. */
    private void drive() {
        synchronized (this) {
            if (driver != null) {
                again = true;
                return;
            }
            if (!installed || closed) {
                return;
            }
            driver = Thread.currentThread();
            again = false;
        }
        try {
            while (next()) {
                // next() did one step
            }
        } finally {
            boolean completing;
            synchronized (this) {
                driver = null;
                completing = completeWhenIdle;
                completeWhenIdle = false;
                notifyAll();
            }
            if (completing) {
                complete.run();
            }
        }
    }

    /** One step of the first write if the stream is ready; false when this thread should stop driving. */
    private boolean next() {
        Write write;
        synchronized (this) {
            write = failure == null && !closed ? writes.peekFirst() : null;
            if (write == null) {
                boolean look = again && !closed;
                again = false;
                return look;
            }
        }
        try {
            if (out.isReady()) {
                step(write);
                return true;
            }
        } catch (IOException | RuntimeException x) {
            fail(x);
            return true;
        }
        // The container calls onWritePossible once the stream is ready: that call finds this thread gone, or sets again.
        synchronized (this) {
            boolean look = again && !closed;
            again = false;
            return look;
        }
    }

    private void step(Write write) throws IOException {
        switch (write.stage) {
            case 0 -> {
                write.stage = 1;
                write.stall = stallTimer(write);
                out.write(write.bytes);
            }
            case 1 -> {
                write.stage = 2;
                if (!write.last) {
                    out.flush();
                }
            }
            default -> {
                synchronized (this) {
                    writes.pollFirst();
                }
                if (write.done.compareAndSet(false, true)) {
                    cancel(write);
                    if (write.last) {
                        // This thread is driving: the exchange is completed as it stops, after this promise.
                        close();
                    }
                    write.written.succeed(null);
                }
            }
        }
    }

    private ScheduledFuture<?> stallTimer(Write write) {
        try {
            return timer.schedule(() -> {
                if (!write.done.get()) {
                    fail(new TimeoutException("a response write was not taken within " + stallMillis + " ms"));
                }
            }, stallMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            return null;
        }
    }

    private static void cancel(Write write) {
        ScheduledFuture<?> stall = write.stall;
        if (stall != null) {
            stall.cancel(false);
        }
    }

    /** Fails the write in progress and every write after it, now and from now on. */
    void fail(Throwable cause) {
        List<Write> failed;
        synchronized (this) {
            if (failure != null) {
                return;
            }
            failure = cause;
            failed = new ArrayList<>(writes);
            writes.clear();
        }
        failAll(failed, cause);
    }

    private static void failAll(List<Write> failed, Throwable cause) {
        for (Write write : failed) {
            if (write.done.compareAndSet(false, true)) {
                cancel(write);
                write.written.fail(cause);
            }
        }
    }

    /**
     * Stops every use of the container's stream and completes the exchange once no other thread is driving: now, or,
     * called by the driving thread itself, as it stops. Writes still queued fail. Idempotent; a later call from
     * another thread (a container's error callback) also waits until no thread is driving.
     */
    void close() {
        List<Write> dropped;
        synchronized (this) {
            closed = true;
            dropped = new ArrayList<>(writes);
            writes.clear();
            if (driver == Thread.currentThread()) {
                completeWhenIdle = true;
            } else if (!awaitNoDriver()) {
                LOG.debug("a writing thread has not stopped within {} ms; it completes the exchange", CLOSE_WAIT_MILLIS);
                completeWhenIdle = true;
            }
        }
        failAll(dropped, new IllegalStateException("the response has ended"));
        synchronized (this) {
            if (completeWhenIdle) {
                return;
            }
        }
        complete.run();
    }

    /** Under this: waits (bounded) until no thread drives; false if one still does. */
    private boolean awaitNoDriver() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS);
        while (driver != null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
