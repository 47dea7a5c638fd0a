package io.weft.spring.boot;

import io.weft.server.api.BayeuxServer;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The Actuator's {@code weft} health component: UP while the Bayeux server takes handshakes, DOWN once it drains
 * ({@code BayeuxServer.drain}) or closes (the application is stopping, see {@link WeftLifecycle}), so that a load balancer that reads the health endpoint sends no
 * new clients to a node on its way out. As {@code MetricsHandler}'s {@code /health} answers on embedded Jetty.
 *
 * <p>Cheap: it reads one flag, and walks no sessions.
 */
public final class WeftHealthIndicator implements HealthIndicator {
    private final BayeuxServer bayeux;

    public WeftHealthIndicator(BayeuxServer bayeux) {
        this.bayeux = Objects.requireNonNull(bayeux, "bayeux");
    }

    @Override
    public Health health() {
        if (bayeux.isClosed()) {
            return Health.down().withDetail("reason", "closing: new handshakes are refused").build();
        }
        if (bayeux.isDraining()) {
            return Health.down().withDetail("reason", "draining: new handshakes are refused, sessions are moving")
                    .build();
        }
        return Health.up().build();
    }
}
