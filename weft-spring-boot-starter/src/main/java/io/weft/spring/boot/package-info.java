/**
 * Weft's Spring Boot auto-configuration: add {@code io.weft:weft-spring-boot-starter} to a Boot application and it
 * serves Bayeux on {@code weft.path} ({@code /cometd}) over websocket and long-polling, with every server option a
 * {@code weft.*} property ({@link io.weft.spring.boot.WeftProperties}), its stats in Micrometer and its state in the
 * Actuator's health where those are present, and closes in Boot's graceful shutdown.
 */
package io.weft.spring.boot;
