package io.weft.examples.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The page in a real browser, Debian's Chromium headless (through Debian's chromedriver, so nothing is downloaded):
 * weft.js connects over the transport the address forces, and what {@link Announcer} publishes is listed, its clock
 * and an announcement. The same application as {@link EndToEndSuite}. Skipped, saying why, where no browser is
 * installed ({@code .ci/run} installs it).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"announcer.clock-period=200ms", "spring.main.banner-mode=off"})
@Timeout(60)
class PageInBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    /** Selenium warns at every start that it has no CDP module for this Chromium; the test uses none. */
    private static final java.util.logging.Logger SELENIUM = java.util.logging.Logger.getLogger("org.openqa.selenium");
    private static ChromeDriver browser;

    @LocalServerPort
    private int port;
    @Autowired
    private Announcer announcer;

    @BeforeAll
    static void startBrowser() {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "no browser: this test needs " + CHROMIUM + " and " + CHROMEDRIVER
                        + " (apt-get install -y chromium chromium-driver)");
        SELENIUM.setLevel(Level.SEVERE);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage");
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void thePageListsWhatTheAnnouncerPublishes(String transport) {
        browser.get("http://127.0.0.1:" + port + "/?transport=" + transport);
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        wait.until(page -> text(page, "state").equals("connected") && listed(page).contains("it is "));
        assertEquals(transport, text(browser, "transport"));

        String marker = "hello over " + transport;
        announcer.announce(marker);
        wait.until(page -> listed(page).contains(marker));
    }

    private static String text(WebDriver page, String id) {
        return page.findElement(By.id(id)).getText();
    }

    private static String listed(WebDriver page) {
        return text(page, "announcements");
    }
}
