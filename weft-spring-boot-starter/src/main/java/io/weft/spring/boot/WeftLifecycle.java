package io.weft.spring.boot;

import io.weft.server.api.BayeuxServer;
import java.util.Objects;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.SmartLifecycle;

/**
 * Closes the {@link BayeuxServer} when the application stops, just before the web server's graceful shutdown: every
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
    private volatile boolean started;

    public WeftLifecycle(BayeuxServer bayeux) {
        this.bayeux = Objects.requireNonNull(bayeux, "bayeux");
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
