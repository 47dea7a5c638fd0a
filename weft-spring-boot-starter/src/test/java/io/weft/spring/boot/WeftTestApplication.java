package io.weft.spring.boot;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * The smallest application that uses the starter: Boot's auto-configuration and nothing of its own (no component scan,
 * so the test configurations beside it stay out). On Boot's embedded Tomcat with Spring MVC and the Actuator, the
 * test class path's.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class WeftTestApplication {
}
