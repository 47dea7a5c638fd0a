package io.weft.examples.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.cluster.redis.RedisServer;
import io.weft.server.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.WebDriver;

/**
 * The chat page in two headless Chromium browsers, each on its own node of a two-node cluster on a real redis-server:
 * the page on node A over websocket, the page on node B over long-polling. They see each other in the member list
 * (the same order on both), chat, and see the other leave when the page goes away. Skipped, saying so, only where no
 * browser is installed.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ChatClusterInBrowserTest {
    @RegisterExtension
    final RedisServer redis = new RedisServer();
    private final List<AutoCloseable> started = new ArrayList<>();

    @BeforeEach
    void browsersInstalled() {
        Browsers.assumeInstalled();
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    private ChatServer node() throws Exception {
        ChatServer node = ChatServer.start(ChatServer.Settings.of(0).withRedis(redis.uri())
                .withAnnounceEvery(Duration.ofSeconds(30))); // the lists sent at each change; none expires here
        started.add(node);
        return node;
    }

    private WebDriver browser() {
        WebDriver driver = Browsers.start();
        started.add(driver::quit);
        return driver;
    }

    @Test
    void twoBrowsersOnTwoNodesChatAndSeeEachOtherLeave() throws Exception {
        ChatServer a = node();
        ChatServer b = node();
        ChatPage alice = new ChatPage(browser()).open(a.baseUrl() + "/").join("alice", "cluster");
        ChatPage bob = new ChatPage(browser()).open(b.baseUrl() + "/?transport=long-polling").join("bob", "cluster");
        assertEquals("websocket", alice.connectedTransport());
        assertEquals("long-polling", bob.connectedTransport());

        List<String> both = Await.until(Duration.ofSeconds(10), () -> a.rooms().members("cluster"),
                names -> names.size() == 2, "both users in node A's list");
        assertEquals(both, b.rooms().members("cluster"), "the same list, in the same order, on both nodes");
        alice.waitForMembers(both.toArray(String[]::new)).waitForNotice("bob joined");
        bob.waitForMembers(both.toArray(String[]::new));

        bob.say("Hello from node B, over long-polling.");
        alice.waitForChat("bob", "Hello from node B, over long-polling.");
        alice.say("Hello from node A, over websocket.");
        bob.waitForChat("alice", "Hello from node A, over websocket.");
        save(alice.screenshot(), "cluster-two-nodes-node-a.png");

        bob.driver().get("about:blank"); // the page disconnects as it goes
        alice.waitForNotice("bob left").waitForMembers("alice");
    }

    private static void save(byte[] png, String name) throws Exception {
        Path folder = Files.createDirectories(Path.of(System.getProperty("weft.examples.target", "target"))
                .resolve("screenshots"));
        Files.write(folder.resolve(name), png);
    }
}
