package io.weft.examples.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerSession;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.resource.ResourceFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Token authentication from a real browser, as docs/server-api.md shows it: a page gives its token in the
 * handshake's {@code ext}, with Weft's client ({@code client.handshake({ext: {token}})}) and with the official CometD
 * client ({@code cometd.handshake({ext: {token}}, ...)}), over websocket and long-polling; the server's policy admits
 * known tokens only, and lets each user subscribe to its own channel only. Skipped, saying so, where no browser is
 * installed.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TokenAuthInBrowserTest {
    /** The tokens the server knows, and whose they are. */
    private static final Map<String, String> USERS = Map.of("s3cret", "alice");
    private static ChatServer server;
    private static ChromeDriver browser;

    /** The policy of docs/server-api.md's token recipe, with each user's channel kept to its user. */
    static final class TokenPolicy implements SecurityPolicy {
        @Override
        public boolean canHandshake(BayeuxServer server, ServerSession session, Message handshake) {
            Map<String, Object> ext = handshake.getExt();
            String user = ext == null ? null : USERS.get(String.valueOf(ext.get("token")));
            if (user == null) {
                return false;
            }
            session.setAttribute("user", user);
            return true;
        }

        @Override
        public boolean canSubscribe(BayeuxServer server, ServerSession session, ChannelId channel, Message message) {
            // the page subscribes to /user/<its token>: only the token's own channel is allowed here
            return !channel.isMeta() && Set.of("/user/s3cret").contains(channel.toString())
                    && "alice".equals(session.getAttribute("user"));
        }
    }

    @BeforeAll
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    static void start() throws Exception {
        Browsers.assumeInstalled();
        Path target = Path.of(System.getProperty("weft.examples.target", "target"));
        Path modules = NpmPackage.install(target.resolve("npm"), NpmPackage.COMETD);
        server = ChatServer.start(ChatServer.Settings.of(0)
                .withContext(ChatInBrowserTest.files("/npm", ResourceFactory.root().newResource(modules)))
                .withContext(ChatInBrowserTest.files("/test",
                        ResourceFactory.root().newClassLoaderResource("browser-test/"))));
        server.bayeux().setSecurityPolicy(new TokenPolicy());
        browser = Browsers.start();
        browser.get(server.baseUrl() + "/test/token.html");
        new WebDriverWait(browser, Duration.ofSeconds(20)).pollingEvery(Duration.ofMillis(100)).until(d ->
                "ready".equals(d.findElement(By.id("status")).getAttribute("data-state")));
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (server != null) {
            server.close();
        }
    }

    private static String run(String function, String transport, String token) {
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
        Object result = browser.executeAsyncScript("const done = arguments[arguments.length - 1];"
                + "window[arguments[0]](arguments[1], arguments[2]).then(done, e => done('failed: ' + e));",
                function, transport, token);
        return String.valueOf(result);
    }

    @ParameterizedTest(name = "{0} over {1}")
    @CsvSource({"weftHandshake, websocket", "weftHandshake, long-polling", "officialHandshake, websocket",
            "officialHandshake, long-polling"})
    void aKnownTokenIsAdmittedAndAnUnknownOrMissingOneRefused(String client, String transport) {
        assertEquals("subscribed over " + transport, run(client, transport, "s3cret"));
        assertEquals("refused: 403::handshake_denied", run(client, transport, "guess"));
        assertEquals("refused: 403::handshake_denied", run(client, transport, null));
    }
}
