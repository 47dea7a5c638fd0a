package io.weft.examples.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The chat demo on the Netty engine ({@code --engine=netty}) in real browsers: two headless Chromium users talk over
 * websocket, eventsource and long-polling, the page and its scripts served beside Bayeux on the same port, and the
 * operator's pages too.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ChatOnNettyInBrowserTest {
    private static ChatServer server;
    private static ChromeDriver alice;
    private static ChromeDriver bob;
    private static String removeScript;

    @BeforeAll
    static void start() throws Exception {
        Browsers.assumeInstalled();
        server = ChatServer.start(ChatDemo.parse("--port=0", "--engine=netty"));
        alice = Browsers.start();
        bob = Browsers.start();
    }

    @AfterAll
    static void stop() {
        Browsers.quit(alice, bob);
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void leavePages() {
        for (ChromeDriver driver : new ChromeDriver[] {alice, bob}) {
            if (removeScript != null) {
                driver.executeCdpCommand("Page.removeScriptToEvaluateOnNewDocument", Map.of("identifier", removeScript));
            }
            driver.get("about:blank");
        }
        removeScript = null;
    }

    private static void beforePageScripts(String script) {
        for (ChromeDriver driver : new ChromeDriver[] {alice, bob}) {
            removeScript = String.valueOf(driver.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument",
                    Map.of("source", script)).get("identifier"));
        }
    }

    private static void talk(String room, String transport) {
        ChatPage a = new ChatPage(alice).open(server.baseUrl() + "/").join("alice", room);
        ChatPage b = new ChatPage(bob).open(server.baseUrl() + "/").join("bob", room);
        assertEquals(transport, a.connectedTransport());
        assertEquals(transport, b.connectedTransport());
        a.waitForMembers("alice", "bob");
        b.say("Netty here, over " + transport + "?");
        a.waitForChat("bob", "Netty here, over " + transport + "?");
        a.say("Loud and clear.");
        b.waitForChat("alice", "Loud and clear.");
    }

    @Test
    void twoUsersChatOverWebSocket() {
        talk("netty-sockets", "websocket");
    }

    @Test
    void twoUsersChatOverEventSource() {
        beforePageScripts("delete window.WebSocket;");
        talk("netty-streams", "eventsource");
    }

    @Test
    void twoUsersChatOverLongPolling() {
        beforePageScripts("delete window.WebSocket; delete window.EventSource;");
        talk("netty-polls", "long-polling");
    }

    @Test
    void theOperatorsPagesAndNothingOutsideTheFolderAreServed() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        assertEquals(200, get(http, "/health").statusCode());
        assertEquals(200, get(http, "/weft.js").statusCode());
        assertEquals(404, get(http, "/../logback.xml").statusCode());
        assertEquals(404, get(http, "/%2e%2e/logback.xml").statusCode());
        assertEquals(404, get(http, "/nothing-here.js").statusCode());
    }

    private static HttpResponse<String> get(HttpClient http, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
