package io.weft.examples.starter;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee11.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code weft-starter.war}, unchanged, in Jetty 12's ee11 web application context (the WAR's own jars in its class
 * loader, Jetty's hidden from it, websocket through Jetty's Jakarta WebSocket container, as the
 * {@code ee11-websocket-jakarta} module gives it on a distribution), on 127.0.0.1 and a free port: the official CometD
 * JavaScript client passes over websocket, long-polling and callback-polling, as on Tomcat
 * ({@link StarterWarOnTomcatIT}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StarterWarOnJettyIT {
    private static OfficialJsClient official;
    private static Server jetty;
    private static String base;

    @BeforeAll
    static void deployOnJetty() throws Exception {
        official = OfficialJsClient.install(Path.of(System.getProperty("weft.examples.target", "target")));
        Path war = Path.of(System.getProperty("weft.starter.war", "target/weft-starter.war"));
        assertTrue(Files.isRegularFile(war), "the WAR is built in the package phase: " + war);
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        WebAppContext webapp = new WebAppContext();
        webapp.setContextPath("/weft-starter");
        webapp.setWar(war.toString());
        webapp.setThrowUnavailableOnStartupException(true);
        // Tomcat's WebSocket initializer is on this module's test class path too: Jetty's own serves the WAR here.
        webapp.setAttribute("org.eclipse.jetty.containerInitializerExclusionPattern", "org\\.apache\\.tomcat\\..*");
        jetty.setHandler(webapp);
        jetty.start();
        base = "http://127.0.0.1:" + connector.getLocalPort() + "/weft-starter";
    }

    @AfterAll
    static void stopJetty() throws Exception {
        if (jetty != null) {
            jetty.stop();
        }
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"websocket", "long-polling", "callback-polling"})
    void theOfficialJavaScriptClientHandshakesSubscribesPublishesReceivesAndDisconnects(String transport)
            throws Exception {
        official.check(base + "/cometd", transport, () -> "");
    }
}
