package io.weft.examples.starter;


import io.weft.examples.testing.WarOnJetty;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Server;
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
        WarOnJetty deployed = WarOnJetty.deploy(war, "/weft-starter", webapp -> { });
        jetty = deployed.jetty();
        base = deployed.base();
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
