package io.weft.transport.longpoll;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices HTTP/1 clients that close their connection while their request is held or streams, in Servlet containers
 * that do not say so (Tomcat): once a second, one byte is written ahead of each held response (a space: leading white
 * space is JSON's, and a script's, to ignore) and between a stream's events (an empty line, which an event stream's
 * reader skips).
 *
 * <p>Why: such a container does not read a connection whose request it holds asynchronously, so a closed tab goes
 * unnoticed until the response is written, and the messages that resume a held {@code /meta/connect} go into the dead
 * connection instead of waiting in the session's queue. The Servlet API cannot read past a request's body, but a write
 * into a connection its client closed fails: the first is answered by a reset, the next fails, and the container
 * reports it ({@code WriteListener.onError}, or the write throws). The exchange then tells the engine, as for any
 * client that goes away, within about two periods.
 *
 * <p>Cost: a held response is sent chunked, its head committed at the first byte; each held request and stream costs
 * one small write a second. On Jetty the {@link ParkedConnectionWatch} reads instead and this is not used; over HTTP/2
 * the container reports a reset itself. Thread-safe; writes run on the timer's thread.
 */
final class HeldResponseHeartbeats {
    static final long PERIOD_MILLIS = ParkedConnectionWatch.PERIOD_MILLIS;

    private static final Logger LOG = LoggerFactory.getLogger(HeldResponseHeartbeats.class);

    private final ScheduledExecutorService timer;
    private final Set<ServletExchange> held = ConcurrentHashMap.newKeySet();

    HeldResponseHeartbeats(ScheduledExecutorService timer) {
        this.timer = timer;
        try {
            timer.scheduleWithFixedDelay(this::beat, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopped) {
            LOG.debug("timer stopped: held responses are not watched");
        }
    }

    /** Starts writing heartbeats on {@code exchange}'s response; stop with {@link #remove}. */
    void add(ServletExchange exchange) {
        held.add(exchange);
    }

    void remove(ServletExchange exchange) {
        held.remove(exchange);
    }

    /** How many responses are watched; for tests. */
    int size() {
        return held.size();
    }

    private void beat() {
        for (ServletExchange exchange : held) {
            try {
                exchange.heartbeat();
            } catch (RuntimeException x) {
                // One exchange's trouble must not stop the others' heartbeats.
                LOG.debug("heartbeat failed on {}: {}", exchange, x.toString());
            }
        }
    }
}
