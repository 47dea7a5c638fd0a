package io.weft.examples.chat;

import static io.weft.examples.chat.JavaClients.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.client.BayeuxClient;
import io.weft.examples.testing.WarOnJetty;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The WAR this module builds, deployed in Jetty's ee11 web application context under {@code /chat}, with the class
 * loader isolation a real deployment has (the WAR's own jars in its class loader, Jetty's classes hidden from it):
 * long-polling through the Servlet, websocket through the listener and Jetty's Jakarta WebSocket container.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChatWarIT {
    private static Path war;
    private static Server jetty;
    private static JavaClients clients;
    private static String base;

    @BeforeAll
    static void deploy() throws Exception {
        war = Path.of(System.getProperty("weft.examples.war", "target/examples-0.1.0-SNAPSHOT.war"));
        WarOnJetty deployed = WarOnJetty.deploy(war, "/chat", webapp -> { });
        jetty = deployed.jetty();
        base = deployed.base();
        clients = new JavaClients();
    }

    @AfterAll
    static void undeploy() throws Exception {
        if (clients != null) {
            clients.close();
        }
        if (jetty != null) {
            jetty.stop();
        }
    }

    @Test
    void theWarBundlesWeftButNoJetty() throws Exception {
        try (ZipFile zip = new ZipFile(war.toFile())) {
            List<String> libs = zip.stream().map(e -> e.getName()).filter(n -> n.startsWith("WEB-INF/lib/")).toList();
            assertTrue(libs.stream().anyMatch(n -> n.contains("transport-websocket")), libs.toString());
            assertTrue(libs.stream().anyMatch(n -> n.contains("transport-longpoll")), libs.toString());
            assertTrue(libs.stream().noneMatch(n -> n.startsWith("WEB-INF/lib/jetty-")), libs.toString());
            assertTrue(zip.getEntry("index.html") != null && zip.getEntry("weft.js") != null);
        }
    }

    @Test
    void thePageAndTheBrowserClientAreServedAtTheContextRoot() throws Exception {
        ContentResponse page = clients.http().GET(base + "/");
        assertEquals(200, page.getStatus());
        assertTrue(page.getContentAsString().contains("<title>Weft chat</title>"));
        ContentResponse script = clients.http().GET(base + "/weft.js");
        assertEquals(200, script.getStatus());
        assertTrue(script.getMediaType().contains("javascript"), script.getMediaType());
    }

    @Test
    void websocketAndLongPollingUsersChatInTheWar() throws Exception {
        BayeuxClient ws = clients.connect(base + "/cometd", "websocket");
        BayeuxClient lp = clients.connect(base + "/cometd", "long-polling");
        assertEquals("websocket", ws.getTransportName());
        assertEquals("long-polling", lp.getTransportName());

        Inbox wsHears = new Inbox();
        await(p -> ws.subscribe("/chat/war", wsHears, p));
        Inbox lpHears = new Inbox();
        await(p -> lp.subscribe("/chat/war", lpHears, p));
        await(p -> ws.publish(ChatRooms.JOIN, Map.of("room", "war", "name", "socket"), p));
        Map<String, Object> joined = await(p -> lp.publish(ChatRooms.JOIN, Map.of("room", "war", "name", "poller"), p))
                .getDataAsMap();
        assertEquals(List.of("socket", "poller"), joined.get("members"));

        await(p -> ws.publish("/chat/war", Map.of("text", "over websocket"), p));
        assertEquals("over websocket", lpHears.next("chat", "socket").get("text"));
        await(p -> lp.publish("/chat/war", Map.of("text", "over long-polling"), p));
        assertEquals("over long-polling", wsHears.next("chat", "poller").get("text"));
    }
}
