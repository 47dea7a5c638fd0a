package io.weft.examples.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.bayeux.Message;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ResourceHandler;
import org.eclipse.jetty.util.resource.Resource;
import org.eclipse.jetty.util.resource.ResourceFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The chat demo in real browsers: two headless Chromium instances (two users, each with its own cookies) join a room
 * and talk, over websocket, over eventsource (a page without WebSocket) and over long-polling; the official CometD JavaScript client talks with Weft's page in the
 * same room. Skipped, saying so, only where no browser is installed.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the screenshot first, while the room list is short
class ChatInBrowserTest {
    private static Path target;
    private static ChatServer server;
    private static ChromeDriver alice;
    private static ChromeDriver bob;
    private static String removeScript;

    @BeforeAll
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    static void start() throws Exception {
        Browsers.assumeInstalled();
        target = Path.of(System.getProperty("weft.examples.target", "target"));
        Path modules = NpmPackage.install(target.resolve("npm"), NpmPackage.COMETD);
        server = ChatServer.start(ChatServer.Settings.of(0)
                .withContext(files("/npm", ResourceFactory.root().newResource(modules)))
                .withContext(files("/test", ResourceFactory.root().newClassLoaderResource("browser-test/"))));
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

    /** Each test's users leave (the page disconnects when it is hidden), and the pages get WebSocket back. */
    @AfterEach
    void leavePages() {
        for (ChromeDriver driver : new ChromeDriver[] {alice, bob}) {
            if (driver != null) {
                if (removeScript != null) {
                    driver.executeCdpCommand("Page.removeScriptToEvaluateOnNewDocument",
                            Map.of("identifier", removeScript));
                }
                driver.get("about:blank");
            }
        }
        removeScript = null;
    }

    @Test
    @Order(1)
    void twoUsersChatInARoomOverWebSocket() throws IOException {
        ChatPage a = new ChatPage(alice).open(server.baseUrl() + "/").join("alice", "lobby");
        ChatPage b = new ChatPage(bob).open(server.baseUrl() + "/").join("bob", "lobby");
        assertEquals("websocket", a.connectedTransport());
        assertEquals("websocket", b.connectedTransport());

        a.waitForMembers("alice", "bob").waitForNotice("bob joined");
        b.say("Hi alice! Bob here.");
        a.waitForChat("bob", "Hi alice! Bob here.");
        a.say("Hello bob! Are you on websocket too?");
        b.waitForChat("alice", "Hello bob! Are you on websocket too?");
        b.say("Yes, the badge up there says so.");
        a.waitForChat("bob", "Yes, the badge up there says so.");
        a.say("Great. Try ?transport=long-polling next.");
        b.waitForChat("alice", "Great. Try ?transport=long-polling next.").waitForMembers("alice", "bob");

        save(b.screenshot(), "two-users-chatting-websocket.png");
    }

    /** Runs {@code script} in both pages before their own scripts, until the test ends. */
    private static void beforePageScripts(String script) {
        for (ChromeDriver driver : new ChromeDriver[] {alice, bob}) {
            Object added = driver.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument",
                    Map.of("source", script)).get("identifier");
            removeScript = String.valueOf(added);
        }
    }

    @Test
    void twoUsersChatOverEventSourceWhenThePageHasNoWebSocket() throws IOException {
        beforePageScripts("delete window.WebSocket;");
        ChatPage a = new ChatPage(alice).open(server.baseUrl() + "/?ack=true").join("alice", "streaming");
        ChatPage b = new ChatPage(bob).open(server.baseUrl() + "/").join("bob", "streaming");
        assertEquals("undefined", ((JavascriptExecutor) alice).executeScript("return typeof WebSocket;"));
        assertEquals("eventsource", a.connectedTransport());
        assertEquals("eventsource", b.connectedTransport());
        assertEquals("true", alice.findElement(By.id("status")).getAttribute("data-ack"));
        wait(alice, "the server to see both sessions on eventsource", d -> server.bayeux().getSessions().stream()
                .filter(session -> "eventsource".equals(session.getConnectionType())).count() == 2);

        a.waitForMembers("alice", "bob");
        b.say("Can you read me without websocket?");
        a.waitForChat("bob", "Can you read me without websocket?");
        a.say("Loud and clear, on one stream.");
        b.waitForChat("alice", "Loud and clear, on one stream.");

        save(b.screenshot(), "two-users-chatting-eventsource.png");
    }

    @Test
    void twoUsersChatOverLongPollingWhenThePageHasNeitherWebSocketNorEventSource() throws IOException {
        beforePageScripts("delete window.WebSocket; delete window.EventSource;");
        ChatPage a = new ChatPage(alice).open(server.baseUrl() + "/").join("alice", "polling");
        ChatPage b = new ChatPage(bob).open(server.baseUrl() + "/").join("bob", "polling");
        assertEquals("undefined", ((JavascriptExecutor) alice).executeScript("return typeof EventSource;"));
        assertEquals("long-polling", a.connectedTransport());
        assertEquals("long-polling", b.connectedTransport());

        a.waitForMembers("alice", "bob");
        b.say("Can you read me without websocket?");
        a.waitForChat("bob", "Can you read me without websocket?");
        a.say("Loud and clear, over long-polling.");
        b.waitForChat("alice", "Loud and clear, over long-polling.");

        save(b.screenshot(), "two-users-chatting-long-polling.png");
    }

    @Test
    void pageFallsBackToEventSourceWhenTheServerRefusesWebSocket() {
        try (ChatServer noWebSocket = ChatServer.start(ChatServer.Settings.of(0).withWebSocket(false))) {
            ChatPage a = new ChatPage(alice).open(noWebSocket.baseUrl() + "/").join("alice", "fallback");
            ChatPage b = new ChatPage(bob).open(noWebSocket.baseUrl() + "/?transport=long-polling")
                    .join("bob", "fallback");
            assertEquals("eventsource", a.connectedTransport());
            assertEquals("long-polling", b.connectedTransport());
            b.say("falling back works");
            a.waitForChat("bob", "falling back works").waitForMembers("alice", "bob");
            alice.get("about:blank");
            bob.get("about:blank");
        } catch (Exception x) {
            throw new AssertionError(x);
        }
    }

    @Test
    void pagesHandshakeAgainAndRejoinWhenTheServerRestarts() throws Exception {
        ChatServer first = ChatServer.start(ChatServer.Settings.of(0));
        int port = first.port();
        ChatServer second = null;
        try {
            String page = first.baseUrl() + "/";
            ChatPage a = new ChatPage(alice).open(page).join("alice", "restart");
            ChatPage b = new ChatPage(bob).open(page + "?transport=long-polling").join("bob", "restart");
            a.waitForMembers("alice", "bob");
            first.close(); // the new server knows no session: each client is told to handshake again
            second = ChatServer.start(ChatServer.Settings.of(port));
            ChatRooms rooms = second.rooms();
            wait(alice, "both pages to join the new server's room",
                    d -> rooms.members("restart").containsAll(List.of("alice", "bob")));
            b.say("still here after the restart");
            a.waitForChat("bob", "still here after the restart");
            a.say("welcome back");
            b.waitForChat("alice", "welcome back");
        } finally {
            alice.get("about:blank");
            bob.get("about:blank");
            first.close();
            if (second != null) {
                second.close();
            }
        }
    }

    @Test
    void aHandshakeRefusedAtABoundIsShownWithItsReasonAndTriedAgain() throws Exception {
        // both browsers are 127.0.0.1: one session for that address
        try (ChatServer bounded = ChatServer.start(ChatServer.Settings.of(0)
                .withOptions(ServerOptions.builder().maxSessionsPerAddress(1).build()))) {
            new ChatPage(alice).open(bounded.baseUrl() + "/").join("alice", "bounded");
            ChatPage b = new ChatPage(bob).open(bounded.baseUrl() + "/").pressJoin("bob", "bounded");

            assertEquals("Could not connect: 429:maxSessionsPerAddress:limit_exceeded (trying again)", b.refusal());
            assertEquals(b.refusal(), b.loginError(), "the login form says it too, where the user waits");
            assertEquals("429:maxSessionsPerAddress:limit_exceeded",
                    bob.findElement(By.id("status")).getAttribute("data-reason"));

            alice.get("about:blank"); // the page disconnects as it goes: the address's session is free again
            b.waitForChatView("bob").waitForMembers("bob");
            assertEquals("websocket", b.connectedTransport());
        }
    }

    @Test
    void aHandshakeTheSecurityPolicyDeniesIsShownAndNotTriedAgain() throws Exception {
        try (ChatServer denying = ChatServer.start(ChatServer.Settings.of(0))) {
            denying.bayeux().setSecurityPolicy(new SecurityPolicy() {
                @Override
                public boolean canHandshake(BayeuxServer server, ServerSession session, Message handshake) {
                    return false;
                }
            });
            ChatPage a = new ChatPage(alice).open(denying.baseUrl() + "/?transport=long-polling")
                    .pressJoin("alice", "denied");

            assertEquals("Could not connect: 403::handshake_denied", a.refusal());
            assertEquals("Could not connect: 403::handshake_denied", a.loginError(),
                    "told reconnect: none, the page does not say it is trying again");
        }
    }

    @Test
    void aHandshakeToAClosingServerIsShownWithItsReason() throws Exception {
        try (ChatServer closing = ChatServer.start(ChatServer.Settings.of(0))) {
            closing.bayeux().close(); // Jetty still serves the page; Bayeux refuses handshakes

            String shown = new ChatPage(alice).open(closing.baseUrl() + "/").pressJoin("alice", "closing").refusal();

            assertEquals("Could not connect: 503::server_closing (trying again)", shown);
        }
    }

    @Test
    void urlParameterForcesEventSource() {
        ChatPage a = new ChatPage(alice).open(server.baseUrl() + "/?transport=eventsource").join("alice", "forced-es");
        assertEquals("eventsource", a.connectedTransport());
        a.waitForMembers("alice");
    }

    @Test
    void urlParameterForcesLongPolling() {
        ChatPage a = new ChatPage(alice).open(server.baseUrl() + "/?transport=long-polling").join("alice", "forced");
        assertEquals("long-polling", a.connectedTransport());
        a.waitForMembers("alice");
    }

    @Test
    void acknowledgedDeliveryWorksInThePage() {
        ChatPage a = new ChatPage(alice).open(server.baseUrl() + "/?ack=true").join("alice", "acked");
        ChatPage b = new ChatPage(bob).open(server.baseUrl() + "/?ack=true&transport=long-polling")
                .join("bob", "acked");
        assertEquals("websocket", a.connectedTransport());
        assertEquals("long-polling", b.connectedTransport());
        assertEquals("true", alice.findElement(By.id("status")).getAttribute("data-ack"));
        assertEquals("true", bob.findElement(By.id("status")).getAttribute("data-ack"));
        b.say("acked hello");
        a.waitForChat("bob", "acked hello");
        a.say("acked reply");
        b.waitForChat("alice", "acked reply");
    }

    @Test
    void aReloadedPageShowsTheLinesItMissedOnceAndInOrder() {
        ChatPage a = new ChatPage(alice).open(server.baseUrl() + "/").join("alice", "reload");
        ChatPage b = new ChatPage(bob).open(server.baseUrl() + "/").join("bob", "reload");
        a.waitForMembers("alice", "bob");
        b.say("before the reload");
        a.waitForChat("bob", "before the reload");
        alice.navigate().refresh();
        b.waitForNotice("alice left").waitForMembers("bob"); // the old page's session has ended
        b.say("missed one");
        b.say("missed two");
        b.waitForChat("bob", "missed two");
        a.join("alice", "reload").waitForChat("bob", "missed two");
        b.say("after");
        a.waitForChat("bob", "after");
        assertEquals(List.of("bob: missed one", "bob: missed two", "bob: after"), a.chatLines(),
                "what the reload missed, once, in order, and nothing it had shown before");
    }

    @Test
    void closingThePageLeavesTheRoom() {
        ChatPage a = new ChatPage(alice).open(server.baseUrl() + "/").join("alice", "leaving");
        new ChatPage(bob).open(server.baseUrl() + "/").join("bob", "leaving");
        a.waitForMembers("alice", "bob");
        bob.get("about:blank");
        a.waitForNotice("bob left").waitForMembers("alice");
    }

    @ParameterizedTest(name = "official client over {0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void officialCometdClientChatsWithWeftsPage(String transport) {
        String room = "interop-" + transport;
        ChatPage a = new ChatPage(alice).open(server.baseUrl() + "/").join("alice", room);
        bob.get(server.baseUrl() + "/test/official.html?name=olivia&room=" + room + "&transport=" + transport);
        wait(bob, "the official client to join", d -> "joined".equals(officialStatus(d)));
        assertEquals(transport, bob.findElement(By.id("status")).getAttribute("data-transport"));

        a.waitForNotice("olivia joined").waitForMembers("alice", "olivia");
        bob.executeScript("window.officialSay('Hello from the official CometD client');");
        a.waitForChat("olivia", "Hello from the official CometD client");
        a.say("Hello olivia, from weft.js");
        wait(bob, "weft.js's message in the official page", d -> d.findElements(By.cssSelector("#messages li.chat"))
                .stream().anyMatch(li -> li.getText().equals("alice: Hello olivia, from weft.js")));
    }

    private static String officialStatus(WebDriver driver) {
        return driver.findElement(By.id("status")).getAttribute("data-state");
    }

    private static void wait(WebDriver driver, String what, java.util.function.Function<WebDriver, Boolean> until) {
        try {
            new WebDriverWait(driver, ChatPage.WAIT).pollingEvery(Duration.ofMillis(100)).until(until::apply);
        } catch (RuntimeException x) {
            throw new AssertionError("waited for " + what + "; the page shows: " + ChatPage.describe(driver), x);
        }
    }

    private static void save(byte[] png, String name) throws IOException {
        Path folder = Files.createDirectories(target.resolve("screenshots"));
        Files.write(folder.resolve(name), png);
    }

    static ContextHandler files(String path, Resource base) {
        ResourceHandler files = new ResourceHandler();
        files.setBaseResource(base);
        files.setDirAllowed(false);
        return new ContextHandler(files, path);
    }
}
