package io.weft.examples.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.examples.chat.Browsers;
import io.weft.examples.chat.ChatServer;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ResourceHandler;
import org.eclipse.jetty.util.resource.ResourceFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * weft.js with {@code positions: 'session'} in headless Chromium: a page that goes away (its session ends) and comes
 * back in the same tab gets, from the positions its sessionStorage kept, what was published meanwhile, in order and
 * once, told {@code recovered: true} ({@code src/test/resources/browser-test/recovery.html}). Skipped, saying so, where
 * no browser is installed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RecoveryInBrowserTest {
    private ChatServer server;
    private ChromeDriver browser;

    @BeforeEach
    void start() throws Exception {
        Browsers.assumeInstalled();
        ResourceHandler pages = new ResourceHandler();
        pages.setBaseResource(ResourceFactory.root().newClassLoaderResource("browser-test/"));
        pages.setDirAllowed(false);
        server = ChatServer.start(ChatServer.Settings.of(0)
                .withOptions(ServerOptions.builder().set("history", "/recovery/**:size=100").build())
                .withContext(new ContextHandler(pages, "/test")));
        browser = Browsers.start();
    }

    @AfterEach
    void stop() {
        Browsers.quit(browser);
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aPageThatComesBackGetsWhatWasPublishedWhileItWasAway() {
        String page = server.baseUrl() + "/test/recovery.html";
        browser.get(page);
        awaitStatus("state", "subscribed");
        publish(1, 3);
        awaitStatus("received", "1,2,3");

        browser.get("about:blank"); // the page goes: it disconnects, its positions stay in the tab's sessionStorage
        publish(4, 6);
        browser.get(page);
        awaitStatus("received", "4,5,6");
        publish(7, 7);
        awaitStatus("received", "4,5,6,7");

        assertEquals("true", status("recovered"));
    }

    private void publish(long from, long to) {
        ServerChannel channel = server.bayeux().createChannelIfAbsent("/recovery/page");
        for (long n = from; n <= to; n++) {
            channel.publish(null, Map.of("n", n));
        }
    }

    private String status(String name) {
        return browser.findElement(By.id("status")).getAttribute("data-" + name);
    }

    private void awaitStatus(String name, String value) {
        new WebDriverWait(browser, Duration.ofSeconds(20))
                .withMessage(() -> "#status data-" + name + " never " + value + ": " + status(name) + ", "
                        + browser.findElement(By.id("status")).getText())
                .until(driver -> value.equals(status(name)));
    }
}
