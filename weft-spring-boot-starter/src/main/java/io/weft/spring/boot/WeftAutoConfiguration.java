package io.weft.spring.boot;

import io.weft.server.api.BayeuxServer;
import io.weft.transport.longpoll.LongPollingServlet;
import io.weft.transport.websocket.WebSocketServletMount;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletContextInitializer;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Weft in a Spring Boot application: a {@link BayeuxServer} bean with the {@code weft.*} options (unless the
 * application defines its own, which is then the one served), closed by {@link WeftLifecycle} before the web server
 * shuts down, and, in a servlet web application, long-polling and websocket mounted on {@code weft.path}.
 *
 * <pre>
 * transport (HTTP body / WebSocket frame)     &lt;-- this: LongPollingServlet on weft.path/*, websocket on the same path
 *   -&gt; JSON decode -&gt; extensions -&gt; meta/publish -&gt; channel tree -&gt; session queues -&gt; flush   (server-core)
 * </pre>
 */
@AutoConfiguration
@EnableConfigurationProperties(WeftProperties.class)
public class WeftAutoConfiguration {
    /** The Bayeux server, with the options of the {@code weft.*} properties; Spring closes it with the context. */
    @Bean
    @ConditionalOnMissingBean
    public BayeuxServer bayeuxServer(WeftProperties properties) {
        return BayeuxServer.create(properties.toServerOptions());
    }

    /**
     * Drains the server (this one or the application's) over {@code weft.drain}, or closes it, before the web server's
     * graceful shutdown.
     */
    @Bean
    @ConditionalOnMissingBean
    public WeftLifecycle weftLifecycle(BayeuxServer bayeux, WeftProperties properties) {
        return new WeftLifecycle(bayeux, properties.getDrain());
    }

    /**
     * Both transports on {@code weft.path}, in the servlet container Boot embeds (Tomcat, or Jetty): clients are given
     * {@code http://host:port/cometd}, and websocket upgrades and long-polling requests go to that same URL.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    static class ServletTransports {
        /** long-polling and callback-polling: asynchronous, so a held {@code /meta/connect} keeps no thread. */
        @Bean
        @ConditionalOnMissingBean(name = "weftLongPolling")
        ServletRegistrationBean<LongPollingServlet> weftLongPolling(BayeuxServer bayeux, WeftProperties properties) {
            ServletRegistrationBean<LongPollingServlet> registration =
                    new ServletRegistrationBean<>(new LongPollingServlet(bayeux), properties.servletMapping());
            registration.setName("weft");
            registration.setAsyncSupported(true);
            registration.setLoadOnStartup(1);
            return registration;
        }

        /**
         * websocket, through the container's Jakarta WebSocket {@code ServerContainer}. Boot's Tomcat publishes it from
         * its WebSocket initializer ({@code WsSci}), which runs after Boot's own initializers, this one among them:
         * the mount's filter finds it when the context starts. A container without one serves long-polling only, and
         * says so in one WARN line.
         */
        @Bean
        @ConditionalOnMissingBean(name = "weftWebSocket")
        ServletContextInitializer weftWebSocket(BayeuxServer bayeux, WeftProperties properties) {
            return servletContext -> WebSocketServletMount.mount(servletContext, bayeux, properties.servletMapping());
        }
    }
}
