package io.weft.spring.boot;

import io.weft.server.api.BayeuxServer;
import java.time.Duration;
import java.util.Objects;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.SmartLifecycle;

/**
 * Drains the {@link BayeuxServer} over {@code weft.drain} ({@link BayeuxServer#drain}: {@code /health} DOWN at once,
 * each client told to handshake again, through its load balancer, at a moment spread over the window), or with no
 * window closes it, when the application stops, just before the web server's graceful shutdown: every
 * held {@code /meta/connect} is answered then (advice {@code reconnect: handshake}, so clients go to another node or
 * come back later), while the container still writes responses, and the graceful shutdown does not wait a whole
 * {@code weft.timeout} for held long-polls. From then on new handshakes are refused and {@link WeftHealthIndicator}
 * reports DOWN.
 *
 * <p>Not pausable: a closed server does not open again, so a context's {@code pause()} leaves it serving.
 */
public final class WeftLifecycle implements SmartLifecycle {
    /**
     * Stops just before the web server's graceful shutdown ({@link WebServerApplicationContext#GRACEFUL_SHUTDOWN_PHASE}),
     * which comes before the web server stops: phases stop from the highest down.
     */
    public static final int PHASE = WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE + 1;

    private final BayeuxServer bayeux;
    private final Duration drain;
    private volatile boolean started;

    /** Closes {@code bayeux} at once when the application stops. */
    public WeftLifecycle(BayeuxServer bayeux) {
        this(bayeux, Duration.ZERO);
    }

    /** Drains {@code bayeux} over {@code drain} when the application stops (closes it at once if zero). */
    public WeftLifecycle(BayeuxServer bayeux, Duration drain) {
        this.bayeux = Objects.requireNonNull(bayeux, "bayeux");
        this.drain = Objects.requireNonNull(drain, "drain");
        if (drain.isNegative()) {
            throw new IllegalArgumentException("weft.drain must not be negative: " + drain);
        }
    }

    @Override
    public void start() {
        started = true;
    }

    /** Closes the server; idempotent. */
    @Override
    public void stop() {
        started = false;
        bayeux.close();
    }

    /** Drains the server over {@code weft.drain}, then tells the context, which goes on stopping; idempotent. */
    @Override
    public void stop(Runnable callback) {
        started = false;
        if (drain.isZero()) {
            bayeux.close();
            callback.run();
        } else {
            bayeux.drain(drain).whenComplete((closed, failure) -> callback.run());
        }
    }

    @Override
    public boolean isRunning() {
        return started && !bayeux.isClosed();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    @Override
    public boolean isPauseable() {
        return false;
    }
}
