package io.weft.examples.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.eclipse.jetty.ee11.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A built WAR deployed as a Jetty distribution would deploy it, on a Jetty of its own on a free loopback port.
 *
 * @param jetty the server, started; the caller stops it
 * @param base {@code http://127.0.0.1:<port><contextPath>}
 */
public record WarOnJetty(Server jetty, String base) {
    /**
     * Deploys {@code war} at {@code contextPath}; {@code configure} may set more of the web application (init
     * parameters, hidden classes) before it starts. Startup failures of the WAR fail the deployment.
     */
    public static WarOnJetty deploy(Path war, String contextPath, Consumer<WebAppContext> configure) throws Exception {
        assertTrue(Files.isRegularFile(war), "the WAR is built in the package phase: " + war);
        Server jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        WebAppContext webapp = new WebAppContext();
        webapp.setContextPath(contextPath);
        webapp.setWar(war.toString());
        webapp.setThrowUnavailableOnStartupException(true);
        // Tomcat's WebSocket initializer is on this module's test class path too (the Tomcat tests): Jetty's own
        // Jakarta WebSocket container serves the WAR here, as on a Jetty distribution.
        webapp.setAttribute("org.eclipse.jetty.containerInitializerExclusionPattern", "org\\.apache\\.tomcat\\..*");
        configure.accept(webapp);
        jetty.setHandler(webapp);
        try {
            jetty.start();
        } catch (Exception x) {
            jetty.stop();
            throw x;
        }
        return new WarOnJetty(jetty, "http://127.0.0.1:" + connector.getLocalPort() + contextPath);
    }
}
