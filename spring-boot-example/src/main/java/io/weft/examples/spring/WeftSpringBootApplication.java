package io.weft.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Weft in a Spring Boot application on Boot's embedded Tomcat: weft-spring-boot-starter serves Bayeux on
 * {@code /cometd} (websocket and long-polling) with the {@code weft.*} properties of application.properties,
 * {@link Announcer} publishes to {@code /announcements}, and the page ({@code static/index.html}) subscribes with
 * weft.js.
 */
@SpringBootApplication
@EnableScheduling
public class WeftSpringBootApplication {
    public static void main(String[] args) {
        SpringApplication.run(WeftSpringBootApplication.class, args);
    }
}
