package io.weft.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.weft.metrics.micrometer.WeftMetrics;
import io.weft.server.api.BayeuxServer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The server's stats as Micrometer meters ({@code weft.sessions}, {@code weft.deliveries}, ... ; {@code weft_*} in
 * Prometheus, see metrics-micrometer's README), where the application has a {@link MeterRegistry}: Spring Boot's
 * metrics auto-configuration (the Actuator's) binds every {@code MeterBinder} bean, this one included, to its
 * registries.
 */
@AutoConfiguration(after = WeftAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass({MeterRegistry.class, WeftMetrics.class})
@ConditionalOnBean({MeterRegistry.class, BayeuxServer.class})
public class WeftMetricsAutoConfiguration {
    @Bean
    @ConditionalOnMissingBean
    public WeftMetrics weftMetrics(BayeuxServer bayeux) {
        return new WeftMetrics(bayeux);
    }
}
