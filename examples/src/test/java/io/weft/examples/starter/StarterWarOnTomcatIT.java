package io.weft.examples.starter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.examples.chat.Browsers;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * {@code weft-starter.war} deployed as a user deploys it: copied into {@code webapps/} of a stock Tomcat 11
 * distribution (unpacked by the build under {@code target/tomcat-dist}), which is started with
 * {@code bin/catalina.sh run} in its own process on a free port. The official CometD JavaScript client (npm
 * {@code cometd} 9.0.0 in Node, through {@code cometd-nodejs-client} 2.0.0; {@code node/cometd-check.mjs}) then
 * handshakes, subscribes, publishes, receives its own message and disconnects on each transport; and the starter's
 * page, in headless Chromium, connects with {@code weft.js}, shows the connection and echoes what it publishes.
 * Skipped, saying so, where Node is not installed; the page's test also where no browser is.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StarterWarOnTomcatIT {
    private static final String CONTEXT = "/weft-starter";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static OfficialJsClient official;
    private static Path catalinaBase;
    private static Process tomcat;
    private static String base;

    @BeforeAll
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    static void deployOnTomcat() throws Exception {
        Path target = Path.of(System.getProperty("weft.examples.target", "target"));
        Path war = Path.of(System.getProperty("weft.starter.war", "target/weft-starter.war"));
        Path distribution = Path.of(System.getProperty("weft.tomcat.home", "target/tomcat-dist/apache-tomcat"));
        assertTrue(Files.isRegularFile(war), "the WAR is built in the package phase: " + war);
        assertTrue(Files.isRegularFile(distribution.resolve("bin/catalina.sh")),
                "the Tomcat distribution is unpacked in pre-integration-test: " + distribution);

        official = OfficialJsClient.install(target);

        catalinaBase = target.resolve("starter-tomcat").toAbsolutePath();
        deleteTree(catalinaBase);
        copyTree(distribution, catalinaBase);
        int port = freePort();
        configurePort(catalinaBase.resolve("conf/server.xml"), port);
        Files.copy(war, catalinaBase.resolve("webapps/weft-starter.war"));
        tomcat = startCatalina(catalinaBase);
        base = "http://127.0.0.1:" + port + CONTEXT;
        awaitPage(URI.create(base + "/"), Duration.ofSeconds(60));
    }

    @AfterAll
    static void stopTomcat() throws Exception {
        if (tomcat == null) {
            return;
        }
        List<ProcessHandle> tree = Stream.concat(Stream.of(tomcat.toHandle()), tomcat.descendants()).toList();
        tree.forEach(ProcessHandle::destroy); // SIGTERM: Tomcat's shutdown hook stops the applications
        if (!tomcat.waitFor(30, TimeUnit.SECONDS)) {
            tree.forEach(ProcessHandle::destroyForcibly);
            tomcat.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void thePageAndTheBrowserClientAreServed() throws Exception {
        HttpResponse<String> page = get(URI.create(base + "/"));
        assertEquals(200, page.statusCode());
        assertTrue(page.headers().firstValue("Content-Type").orElse("").startsWith("text/html"), page.headers()
                .toString());
        assertTrue(page.body().contains("from './weft.js'"), page.body());

        HttpResponse<String> client = get(URI.create(base + "/weft.js"));
        assertEquals(200, client.statusCode());
        assertTrue(client.headers().firstValue("Content-Type").orElse("").contains("javascript"),
                client.headers().toString());
        assertTrue(client.body().contains("export class BayeuxClient"));
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void thePageConnectsShowsTheConnectionAndEchoesWhatItPublishes(String transport) {
        Browsers.assumeInstalled();
        ChromeDriver browser = Browsers.start();
        try {
            browser.get(base + "/?transport=" + transport);
            WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
            wait.until(page -> text(page, "state").equals("connected")
                    && page.findElement(By.cssSelector("#send button")).isEnabled());
            assertEquals(transport, text(browser, "transport"));
            assertTrue(text(browser, "client-id").length() >= 16, text(browser, "client-id"));

            String marker = "echo-" + transport;
            browser.findElement(By.id("text")).sendKeys(marker, Keys.ENTER);
            wait.until(page -> text(page, "echo").contains(marker));
        } finally {
            browser.quit();
        }
    }

    private static String text(WebDriver page, String id) {
        return page.findElement(By.id(id)).getText();
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"websocket", "long-polling", "callback-polling"})
    void theOfficialJavaScriptClientHandshakesSubscribesPublishesReceivesAndDisconnects(String transport)
            throws Exception {
        official.check(base + "/cometd", transport, StarterWarOnTomcatIT::tomcatLogTail);
    }

    private static Process startCatalina(Path home) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(home.resolve("bin/catalina.sh").toString(), "run")
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(home.resolve("logs/run.out").toFile());
        Map<String, String> environment = builder.environment();
        List.of("JRE_HOME", "JAVA_OPTS", "CATALINA_OPTS", "CATALINA_PID", "CATALINA_TMPDIR", "CLASSPATH")
                .forEach(environment::remove);
        environment.put("JAVA_HOME", System.getProperty("java.home"));
        environment.put("CATALINA_HOME", home.toString());
        environment.put("CATALINA_BASE", home.toString());
        return builder.start();
    }

    /** The HTTP connector on {@code port} of this machine only, and no shutdown port (the test ends the process). */
    private static void configurePort(Path serverXml, int port) throws IOException {
        String xml = Files.readString(serverXml, StandardCharsets.UTF_8);
        String configured = xml
                .replace("<Server port=\"8005\" shutdown=\"SHUTDOWN\">", "<Server port=\"-1\" shutdown=\"SHUTDOWN\">")
                .replace("<Connector port=\"8080\" protocol=\"HTTP/1.1\"",
                        "<Connector port=\"" + port + "\" address=\"127.0.0.1\" protocol=\"HTTP/1.1\"");
        assertTrue(configured.contains("<Server port=\"-1\"") && configured.contains("port=\"" + port + "\""),
                "server.xml of this Tomcat does not have the stock Server and Connector elements: " + serverXml);
        Files.writeString(serverXml, configured, StandardCharsets.UTF_8);
    }

    /** Polls the page until Tomcat has deployed the WAR and answers 200, or fails once {@code within} is over. */
    private static void awaitPage(URI page, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            assertTrue(tomcat.isAlive(), "Tomcat ended (exit " + (tomcat.isAlive() ? "" : tomcat.exitValue()) + ")"
                    + tomcatLogTail());
            try {
                HttpResponse<String> response = get(page);
                if (response.statusCode() == 200) {
                    return;
                }
                last = "HTTP " + response.statusCode();
            } catch (IOException notYet) {
                last = notYet.toString();
            }
            tomcat.waitFor(100, TimeUnit.MILLISECONDS); // returns at once if Tomcat ends
        }
        throw new AssertionError("Tomcat did not serve " + page + " within " + within + " (" + last + ")"
                + tomcatLogTail());
    }

    private static HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String tomcatLogTail() {
        try {
            List<String> lines = Files.readAllLines(catalinaBase.resolve("logs/run.out"), StandardCharsets.UTF_8);
            return "\n--- Tomcat's output (last 40 lines):\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException x) {
            return "\n(no Tomcat output: " + x + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path copy = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(copy);
                } else {
                    Files.copy(file, copy, StandardCopyOption.COPY_ATTRIBUTES); // keeps bin/*.sh executable
                }
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (Files.exists(root)) {
            try (Stream<Path> files = Files.walk(root)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }
}
