package io.weft.examples.chat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Level;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * Debian's Chromium, headless, driven through Debian's chromedriver: nothing is downloaded at run time (Selenium
 * Manager is never asked, since both paths are given).
 */
public final class Browsers {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    /**
     * Selenium warns at every start that it has no CDP module for this Chromium version; the tests use only
     * {@code executeCdpCommand}, which needs none. Held here so the level set stays (JUL keeps loggers weakly).
     */
    private static final java.util.logging.Logger SELENIUM = java.util.logging.Logger.getLogger("org.openqa.selenium");

    private Browsers() {
    }

    /** Skips the calling test, saying why, where no browser is installed. */
    public static void assumeInstalled() {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "no browser installed: these tests need " + CHROMIUM + " and " + CHROMEDRIVER
                        + " (apt-get install -y chromium chromium-driver; .ci/run installs them)");
    }

    /** A new browser with its own profile (so its own cookies: another user). */
    public static ChromeDriver start() {
        return start(false);
    }

    /**
     * A new browser with its own profile that, if {@code acceptSelfSigned}, takes a certificate no authority signed
     * (a test's own, behind a test's TLS proxy) as a valid one.
     */
    public static ChromeDriver start(boolean acceptSelfSigned) {
        SELENIUM.setLevel(Level.SEVERE);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
                "--disable-dev-shm-usage", "--window-size=1000,640");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
        options.setAcceptInsecureCerts(acceptSelfSigned);
        return new ChromeDriver(service, options);
    }

    /** Quits each browser started (those not started are null). */
    public static void quit(WebDriver... drivers) {
        for (WebDriver driver : drivers) {
            if (driver != null) {
                driver.quit();
            }
        }
    }
}
