package io.weft.transport.websocket;

import io.weft.server.api.ServerOptions;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Where the behaviour suite runs Weft: embedded Jetty (the README's embedded mount), the Servlet mount, a web
 * application, on Jetty's Servlet container and in Tomcat, and Netty (transport-netty).
 */
enum Container {
    JETTY {
        @Override
        BayeuxHost start() throws Exception {
            return EmbeddedServer.start();
        }

        @Override
        BayeuxHost start(ServerOptions options) throws Exception {
            return EmbeddedServer.start(options);
        }
    },
    /** The same web application on Jetty's Servlet container. */
    JETTY_SERVLET {
        @Override
        BayeuxHost start() throws Exception {
            return JettyWebApp.start(ServerOptions.defaults());
        }

        @Override
        BayeuxHost start(ServerOptions options) throws Exception {
            return JettyWebApp.start(options);
        }
    },
    /** transport-netty's engine: all four connection types on one event loop group. */
    NETTY {
        @Override
        BayeuxHost start() throws Exception {
            return NettyHost.start(ServerOptions.defaults());
        }

        @Override
        BayeuxHost start(ServerOptions options) throws Exception {
            return NettyHost.start(options);
        }
    },
    TOMCAT {
        @Override
        BayeuxHost start() throws Exception {
            return TomcatServer.start();
        }

        @Override
        BayeuxHost start(ServerOptions options) throws Exception {
            return TomcatServer.start(options);
        }
    };

    /** A server with the default options, started on 127.0.0.1 and a free port. */
    abstract BayeuxHost start() throws Exception;

    /** A server with {@code options}, started on 127.0.0.1 and a free port. */
    abstract BayeuxHost start(ServerOptions options) throws Exception;

    /** Whether this container's mount serves {@code transport}: all serve every transport (the Servlet streams too). */
    boolean serves(TransportKind transport) {
        return true;
    }

    /** Every container with every transport in {@code transports} it serves, as arguments of a parameterized test. */
    static Stream<Arguments> with(TransportKind... transports) {
        return Arrays.stream(values()).flatMap(container -> Arrays.stream(transports)
                .filter(container::serves).map(transport -> Arguments.of(container, transport)));
    }
}
