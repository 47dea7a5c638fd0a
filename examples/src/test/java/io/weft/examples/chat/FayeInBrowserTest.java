package io.weft.examples.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.resource.ResourceFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Faye's browser client ({@code faye-browser.js} from npm {@code faye} 1.4.3, installed under
 * {@code target/npm-faye}, never committed) in real Chromium against the chat demo's server, each case in a new
 * browser profile (a first visit, without the browser cookie): over websocket, eventsource (Faye's stream URL,
 * {@code <endpoint>/<clientId>}) and long-polling, it subscribes, publishes and receives its message. And the
 * first-visit race: Faye opens its socket while it handshakes over HTTP; through {@link UpgradeDelayingRelay} the
 * socket's 101 arrives 300 ms after the handshake's reply, and the subscribe Faye then sends over the socket must be
 * admitted (issue 28: it was refused {@code 402::session_unknown}, since the 101 had replaced the browser's cookie
 * and the socket presented none). Skipped, saying so, where no browser is installed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FayeInBrowserTest {
    private static ChatServer server;

    @BeforeAll
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    static void start() throws Exception {
        Browsers.assumeInstalled();
        Path target = Path.of(System.getProperty("weft.examples.target", "target"));
        // its own prefix, as FayeClientTest's: npm prunes from a prefix what it was not asked to install there
        Path modules = NpmPackage.install(target.resolve("npm-faye"), NpmPackage.FAYE);
        server = ChatServer.start(ChatServer.Settings.of(0)
                .withContext(ChatInBrowserTest.files("/npm-faye", ResourceFactory.root().newResource(modules)))
                .withContext(ChatInBrowserTest.files("/test",
                        ResourceFactory.root().newClassLoaderResource("browser-test/"))));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** Opens the test page from {@code base} in {@code browser} and runs {@code fayeTalks} there. */
    private static String talk(ChromeDriver browser, String base, String transport, String channel) {
        browser.get(base + "/test/faye.html");
        new WebDriverWait(browser, Duration.ofSeconds(20)).pollingEvery(Duration.ofMillis(100)).until(d ->
                "ready".equals(d.findElement(By.id("status")).getAttribute("data-state")));
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(40));
        Object result = browser.executeAsyncScript("const done = arguments[arguments.length - 1];"
                + "window.fayeTalks(arguments[0], arguments[1], arguments[2]).then(done, e => done('failed: ' + e));",
                base + ChatServer.BAYEUX_PATH, transport, channel);
        return String.valueOf(result);
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"websocket", "eventsource", "long-polling"})
    void fayesBrowserClientSubscribesPublishesAndReceives(String transport) {
        ChromeDriver browser = Browsers.start();
        try {
            assertEquals(transport + " hello over " + transport,
                    talk(browser, server.baseUrl(), transport, "/faye/" + transport.replace('-', '_')));
        } finally {
            browser.quit();
        }
    }

    @Test
    void onTheFirstVisitTheSocketWhose101ArrivesLateCarriesTheSubscription() throws Exception {
        ChromeDriver browser = Browsers.start();
        try (UpgradeDelayingRelay relay = new UpgradeDelayingRelay(server.port(), 300)) {
            long handshakes = server.bayeux().getStats().handshakesAccepted();
            String base = "http://127.0.0.1:" + relay.port();

            assertEquals("websocket hello over websocket", talk(browser, base, "websocket", "/faye/race"));
            assertTrue(relay.delayedUpgrades() >= 1, "the socket's 101 was held back");
            assertEquals(handshakes + 1, server.bayeux().getStats().handshakesAccepted(),
                    "one handshake: no 402 sent Faye back to handshake again");
            List<Cookie> browserCookies = browser.manage().getCookies().stream()
                    .filter(cookie -> cookie.getName().equals("BAYEUX_BROWSER")).toList();
            assertEquals(1, browserCookies.size(), browserCookies.toString());
        } finally {
            browser.quit();
        }
    }
}
