package io.weft.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Weft in a Spring Boot application on Boot's embedded Tomcat: {@link WeftConfiguration} serves Bayeux on
 * {@code /cometd} (long-polling and websocket), {@link Announcer} publishes to {@code /announcements}.
 */
@SpringBootApplication
@EnableScheduling
public class WeftSpringBootApplication {
    public static void main(String[] args) {
        SpringApplication.run(WeftSpringBootApplication.class, args);
    }
}
