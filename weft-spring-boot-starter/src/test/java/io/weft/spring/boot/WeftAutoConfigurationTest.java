package io.weft.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.weft.metrics.micrometer.WeftMetrics;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.ServletContextInitializer;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Which beans the starter defines, and when, without a web server: Boot's context runners. */
class WeftAutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WeftAutoConfiguration.class, WeftMetricsAutoConfiguration.class,
                    WeftHealthContributorAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    static class OwnServer {
        @Bean
        BayeuxServer myBayeux() {
            return BayeuxServer.create(ServerOptions.builder().maxQueue(7).build());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Registry {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    @Test
    void aServerWithTheDefaultOptionsIsDefinedAndClosedWithTheContext() {
        BayeuxServer[] server = new BayeuxServer[1];
        runner.run(context -> {
            server[0] = context.getBean(BayeuxServer.class);
            assertEquals(ServerOptions.defaults(), server[0].getOptions());
            assertTrue(context.getBean(WeftLifecycle.class).isRunning());
            assertTrue(!server[0].isClosed());
        });
        assertTrue(server[0].isClosed(), "closed with the context");
    }

    @Test
    void anApplicationsOwnServerIsKeptAndNoOtherIsDefined() {
        runner.withUserConfiguration(OwnServer.class).run(context -> {
            assertEquals(1, context.getBeansOfType(BayeuxServer.class).size());
            assertSame(context.getBean("myBayeux"), context.getBean(BayeuxServer.class));
            assertEquals(7, context.getBean(BayeuxServer.class).getOptions().maxQueue());
            assertNotNull(context.getBean(WeftLifecycle.class), "the application's server closes before the web server");
        });
    }

    @Test
    void theMetricsBinderIsDefinedWhereTheApplicationHasAMeterRegistry() {
        runner.run(context -> assertTrue(context.getBeansOfType(WeftMetrics.class).isEmpty(), "no registry, no binder"));
        runner.withUserConfiguration(Registry.class)
                .run(context -> assertEquals(1, context.getBeansOfType(WeftMetrics.class).size()));
    }

    @Test
    void theHealthIndicatorIsDefinedWithTheActuatorUnlessSwitchedOff() {
        runner.run(context -> assertNotNull(context.getBean("weftHealthIndicator", WeftHealthIndicator.class)));
        runner.withPropertyValues("management.health.weft.enabled=false")
                .run(context -> assertTrue(context.getBeansOfType(WeftHealthIndicator.class).isEmpty()));
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> {
                    assertTrue(context.getBeansOfType(WeftHealthIndicator.class).isEmpty(), "no Actuator health");
                    assertNotNull(context.getBean(BayeuxServer.class));
                });
    }

    @Test
    void bothTransportsAreMountedOnWeftPathInAServletWebApplication() {
        WebApplicationContextRunner web = new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(WeftAutoConfiguration.class));
        web.run(context -> {
            ServletRegistrationBean<?> polling = context.getBean("weftLongPolling", ServletRegistrationBean.class);
            assertEquals(List.of("/cometd/*"), List.copyOf(polling.getUrlMappings()));
            assertTrue(polling.isAsyncSupported());
            assertNotNull(context.getBean("weftWebSocket", ServletContextInitializer.class));
        });
        web.withPropertyValues("weft.path=/push/bayeux").run(context -> assertEquals(List.of("/push/bayeux/*"),
                List.copyOf(context.getBean("weftLongPolling", ServletRegistrationBean.class).getUrlMappings())));
        runner.run(context -> assertTrue(context.getBeansOfType(ServletRegistrationBean.class).isEmpty(),
                "not a web application: nothing to mount on"));
    }
}
