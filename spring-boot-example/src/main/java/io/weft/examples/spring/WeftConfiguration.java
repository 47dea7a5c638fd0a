package io.weft.examples.spring;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.longpoll.LongPollingServlet;
import io.weft.transport.websocket.WebSocketServletMount;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.web.servlet.ServletContextInitializer;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Weft on {@code /cometd}: one {@link BayeuxServer} bean, the long-polling servlet and the websocket transport on
 * the same path. Clients are given {@code http://host:port/cometd}; websocket upgrades and long-polling POSTs go to
 * the same URL.
 */
@Configuration(proxyBeanMethods = false)
public class WeftConfiguration {
    /** Where Bayeux is served, as a Servlet path mapping: it matches {@code /cometd} itself. */
    public static final String PATH = "/cometd/*";

    /**
     * The Bayeux server, with the defaults and any {@code weft.*} property of the environment, by option name as in
     * docs/server-options.md ({@code weft.timeout=25000}, {@code weft.allowedOrigins=https://example.org}); an
     * unknown name or a bad value fails start-up, naming it. Spring closes it after the web server has stopped.
     */
    @Bean(destroyMethod = "close")
    public BayeuxServer bayeuxServer(Environment environment) {
        ServerOptions.Builder options = ServerOptions.builder();
        Binder.get(environment).bind("weft", Bindable.mapOf(String.class, String.class))
                .orElse(Map.of())
                .forEach(options::set);
        return BayeuxServer.create(options.build());
    }

    /** Long-polling and callback-polling: asynchronous, so a held {@code /meta/connect} keeps no Tomcat thread. */
    @Bean
    public ServletRegistrationBean<LongPollingServlet> longPollingServlet(BayeuxServer bayeux) {
        ServletRegistrationBean<LongPollingServlet> registration =
                new ServletRegistrationBean<>(new LongPollingServlet(bayeux), PATH);
        registration.setName("bayeux");
        registration.setAsyncSupported(true);
        registration.setLoadOnStartup(1);
        return registration;
    }

    /**
     * Websocket on the same path, through the container's Jakarta WebSocket {@code ServerContainer}. Boot's Tomcat
     * publishes that container from its WebSocket initializer, which runs after Boot's own initializers (this one
     * among them): the mount's filter finds it when the context starts.
     */
    @Bean
    public ServletContextInitializer webSocketTransport(BayeuxServer bayeux) {
        return servletContext -> WebSocketServletMount.mount(servletContext, bayeux, PATH);
    }
}
