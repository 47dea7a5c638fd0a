package io.weft.spring.boot;

import io.weft.server.api.BayeuxServer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code weft} component of the Actuator's health ({@link WeftHealthIndicator}), where the application has the
 * Actuator; {@code management.health.weft.enabled=false} leaves it out.
 */
@AutoConfiguration(after = WeftAutoConfiguration.class)
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnBean(BayeuxServer.class)
@ConditionalOnEnabledHealthIndicator("weft")
public class WeftHealthContributorAutoConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "weftHealthIndicator")
    public WeftHealthIndicator weftHealthIndicator(BayeuxServer bayeux) {
        return new WeftHealthIndicator(bayeux);
    }
}
