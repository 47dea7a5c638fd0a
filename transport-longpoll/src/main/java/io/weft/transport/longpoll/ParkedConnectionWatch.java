package io.weft.transport.longpoll;

import jakarta.servlet.ServletRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices HTTP/1 clients that close their connection while their request waits in the engine.
 *
 * <p>Why: while a request is being handled and its body has been read, Jetty does not read from an HTTP/1 connection,
 * so a client that closes it (a closed tab, an aborted XHR) goes unnoticed until the response is written, and the
 * messages that resume a parked {@code /meta/connect} would be written into a dead connection instead of waiting in
 * the session's queue. HTTP/2 needs none of this: a reset stream fails the request at once.
 *
 * <p>How: once a second, one non-blocking read of at most one byte on each watched connection. End of stream closes
 * the connection, which fails its request through Jetty's own failure path (the adapters' "client gone" listeners).
 * A byte (a pipelined next request) goes back to the connection, which parses it after the current response, and the
 * connection is no longer probed. A probe never runs once the response has started: {@link Probe#stop()} waits for a
 * probe in progress, which is a single non-blocking read.
 *
 * <p>Thread-safe. Probes run on the Jetty scheduler's thread; a tick that a stopped scheduler dropped is noticed and
 * scheduled again by the next watched request.
 */
final class ParkedConnectionWatch {
    static final long PERIOD_MILLIS = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(ParkedConnectionWatch.class);

    private final Set<Probe> probes = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean ticking = new AtomicBoolean();
    /** When the scheduled tick is due; a tick long overdue was dropped by a scheduler that stopped. */
    private volatile long tickDue;

    private Probe watch(EndPoint endPoint, Scheduler scheduler) {
        Probe probe = new Probe(endPoint);
        probes.add(probe);
        if (ticking.compareAndSet(false, true)
                || NanoTime.millisSince(tickDue) > 2 * PERIOD_MILLIS) {
            schedule(scheduler);
        }
        return probe;
    }

    private void schedule(Scheduler scheduler) {
        tickDue = NanoTime.now() + TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS);
        try {
            scheduler.schedule(() -> tick(scheduler), PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException x) {
            ticking.set(false);
            LOG.debug("scheduler stopped; watching resumes with the next parked request");
        }
    }

    private void tick(Scheduler scheduler) {
        ByteBuffer buffer = BufferUtil.allocate(1);
        try {
            for (Probe probe : probes) {
                probe.probe(buffer);
            }
        } finally {
            ticking.set(false);
            if (!probes.isEmpty() && ticking.compareAndSet(false, true)) {
                schedule(scheduler);
            }
        }
    }

    /**
     * Starts watching the connection of {@code request} if it is HTTP/1 (HTTP/2 and HTTP/3 report a client's reset
     * themselves); stop the returned probe before writing the response. Null when there is nothing to watch.
     */
    Probe watch(Request request) {
        ConnectionMetaData connection = request.getConnectionMetaData();
        if (connection.getHttpVersion().getVersion() >= HttpVersion.HTTP_2.getVersion()) {
            return null;
        }
        return watch(connection.getConnection().getEndPoint(), request.getComponents().getScheduler());
    }

    /**
     * For the Servlet adapter: what starts watching the connection under {@code request} when the Servlet runs in
     * Jetty 12's own servlet context (see {@link JettyServletRequests}); starting returns how to stop, or null. Null
     * when the container is another one.
     */
    Supplier<Runnable> watcher(ServletRequest servletRequest) {
        Request core = JettyServletRequests.coreRequest(servletRequest);
        if (core == null) {
            return null;
        }
        return () -> {
            Probe probe = watch(core);
            return probe == null ? null : probe::stop;
        };
    }

    /** How many connections are watched: HTTP/1 requests handed to the engine and not answered yet. */
    int size() {
        return probes.size();
    }

    /** One watched connection. */
    final class Probe {
        private final EndPoint endPoint;
        private boolean stopped;

        private Probe(EndPoint endPoint) {
            this.endPoint = endPoint;
        }

        /** Stops probing; returns once no probe is in progress. */
        void stop() {
            synchronized (this) {
                stopped = true;
            }
            probes.remove(this);
        }

        private void probe(ByteBuffer buffer) {
            int filled;
            synchronized (this) {
                if (stopped) {
                    return;
                }
                BufferUtil.clear(buffer);
                try {
                    filled = endPoint.fill(buffer);
                } catch (IOException x) {
                    filled = -1;
                }
                if (filled == 0) {
                    return;
                }
                stopped = true;
                if (filled > 0) {
                    giveBack(buffer);
                }
            }
            probes.remove(this);
            if (filled < 0) {
                LOG.debug("client closed {} while its request was parked", endPoint);
                // Closing the connection, not just the endpoint, is what fails the request it carries.
                endPoint.getConnection().close();
            }
        }

        /** Returns pipelined bytes to the HTTP/1 connection, which reads them after the current response. */
        private void giveBack(ByteBuffer buffer) {
            if (endPoint.getConnection() instanceof Connection.UpgradeTo connection) {
                LOG.debug("keeping a pipelined request behind the parked one on {}", endPoint);
                connection.onUpgradeTo(BufferUtil.copy(buffer));
            } else {
                endPoint.close(new IOException("cannot keep bytes pipelined behind a parked request"));
            }
        }
    }
}
