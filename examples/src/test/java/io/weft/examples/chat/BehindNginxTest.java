package io.weft.examples.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.examples.starter.OfficialJsClient;
import io.weft.server.api.ClientRequest;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The chat demo behind a real nginx (Debian's, on a free port other than 443, TLS with a certificate made for the
 * run), configured with the user guide's own site block ({@link Nginx}), as a user following "Behind a reverse proxy"
 * runs it: the chat server trusts the proxy ({@code --trust-proxy=127.0.0.1}). Through it, the page in Chromium over
 * websocket and over long-polling with a {@code Secure} cookie; the official CometD JavaScript client over websocket,
 * long-polling and callback-polling; each client counted under its own address by the per-address bound (clients
 * bound to 127.0.0.2 and 127.0.0.3, which nginx forwards as theirs), on Jetty and on Netty; and a server that does not
 * trust its proxy refusing the page's origin, which the page shows.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BehindNginxTest {
    private static final Path TARGET = Path.of(System.getProperty("weft.examples.target", "target"));
    @TempDir
    static Path work;
    private static SelfSignedCertificate tls;
    private static ChatServer server;
    private static Nginx nginx;
    private static ChromeDriver alice;
    private static ChromeDriver bob;

    @BeforeAll
    static void start() throws Exception {
        tls = SelfSignedCertificate.create(work.resolve("tls"));
        server = ChatServer.start(ChatServer.Settings.of(0).withTrustedProxies(List.of("127.0.0.1")));
        nginx = Nginx.start(work.resolve("nginx"), tls, server.port());
    }

    @AfterAll
    static void stop() throws Exception {
        Browsers.quit(alice, bob);
        if (nginx != null) {
            nginx.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** The two browsers, started once for the tests that need them (skipped, saying so, where none is installed). */
    private static void browsers() {
        Browsers.assumeInstalled();
        if (alice == null) {
            alice = Browsers.start(true);
            bob = Browsers.start(true);
        }
    }

    @Test
    void thePageChatsThroughNginxOverWebSocketAndLongPollingWithASecureCookie() throws IOException {
        browsers();
        assertNotEquals(443, nginx.port());
        ChatPage a = new ChatPage(alice).open(nginx.baseUrl() + "/").join("alice", "proxied");
        ChatPage b = new ChatPage(bob).open(nginx.baseUrl() + "/?transport=long-polling").join("bob", "proxied");
        try {
            assertEquals("websocket", a.connectedTransport());
            assertEquals("long-polling", b.connectedTransport());
            a.waitForMembers("alice", "bob");
            b.say("Hello through nginx");
            a.waitForChat("bob", "Hello through nginx");
            a.say("Over a socket nginx upgraded");
            b.waitForChat("alice", "Over a socket nginx upgraded");

            // The long-polling page got its browser cookie from the handshake's reply, Secure behind the TLS proxy. A
            // websocket's 101 never sets one (it could replace the one a racing HTTP handshake set: docs/protocol.md),
            // so the websocket page may have none; whatever cookie a page holds is Secure.
            Cookie polling = bob.manage().getCookieNamed("BAYEUX_BROWSER");
            assertTrue(polling != null && polling.isSecure() && polling.isHttpOnly(), String.valueOf(polling));
            Cookie socket = alice.manage().getCookieNamed("BAYEUX_BROWSER");
            assertTrue(socket == null || socket.isSecure() && socket.isHttpOnly(), String.valueOf(socket));
            List<ClientRequest> requests = server.bayeux().getSessions().stream().filter(s -> !s.isLocal())
                    .map(ServerSession::getRequest).toList();
            assertEquals(2, requests.size(), requests.toString());
            for (ClientRequest request : requests) {
                assertTrue(request.isSecure(), "the browser came over HTTPS, nginx said so: " + request);
            }
            Path screenshots = Files.createDirectories(TARGET.resolve("screenshots"));
            Files.write(screenshots.resolve("behind-nginx.png"), b.screenshot());
        } finally {
            alice.get("about:blank");
            bob.get("about:blank");
        }
    }

    @ParameterizedTest(name = "the official CometD JavaScript client over {0}")
    @ValueSource(strings = {"websocket", "long-polling", "callback-polling"})
    void theOfficialClientPassesThroughNginx(String transport) throws Exception {
        OfficialJsClient client = OfficialJsClient.install(TARGET);
        client.check(nginx.baseUrl() + "/cometd", transport, nginx::logs,
                Map.of("NODE_EXTRA_CA_CERTS", tls.certificate().toString()));
    }

    @ParameterizedTest(name = "on Netty: {0}")
    @ValueSource(booleans = {false, true})
    void eachClientIsCountedUnderItsOwnAddress(boolean netty) throws Exception {
        try (ChatServer bounded = ChatServer.start(ChatServer.Settings.of(0).withTrustedProxies(List.of("127.0.0.1"))
                .withOptions(ServerOptions.builder().maxSessionsPerAddress(1).build()).withNetty(netty));
                Nginx proxy = Nginx.start(work.resolve("nginx-bounded"), tls, bounded.port())) {
            ContentResponse first = handshake(proxy, "127.0.0.2", null);
            assertTrue(successful(first), first.getContentAsString());
            assertTrue(first.getHeaders().get("Set-Cookie").contains("; Secure"), first.getHeaders().toString());

            ContentResponse other = handshake(proxy, "127.0.0.3", null);
            assertTrue(successful(other), "another address behind the same nginx: " + other.getContentAsString());

            ContentResponse again = handshake(proxy, "127.0.0.2", null);
            assertFalse(successful(again), again.getContentAsString());
            assertTrue(again.getContentAsString().contains("429:maxSessionsPerAddress:limit_exceeded"),
                    again.getContentAsString());

            // what a client writes in X-Forwarded-For itself comes first in what nginx appends to: not its address
            ContentResponse claiming = handshake(proxy, "127.0.0.3", "198.51.100.7");
            assertTrue(claiming.getContentAsString().contains("429:maxSessionsPerAddress:limit_exceeded"),
                    claiming.getContentAsString());
        }
    }

    @Test
    void aServerThatDoesNotTrustItsProxyRefusesThePageAndThePageSaysWhy() throws Exception {
        browsers();
        try (ChatServer distrusting = ChatServer.start(ChatServer.Settings.of(0));
                Nginx proxy = Nginx.start(work.resolve("nginx-distrusted"), tls, distrusting.port())) {
            ChatPage a = new ChatPage(alice).open(proxy.baseUrl() + "/").pressJoin("alice", "refused");

            assertEquals("Could not connect: HTTP 403: origin not allowed: " + proxy.baseUrl() + " (trying again)",
                    a.refusal());
            assertEquals("HTTP 403: origin not allowed: " + proxy.baseUrl(),
                    alice.findElement(By.id("status")).getAttribute("data-reason"));
        } finally {
            alice.get("about:blank");
        }
    }

    /** A handshake through nginx from a client bound to {@code source}, with the page's origin, as a browser's. */
    private static ContentResponse handshake(Nginx proxy, String source, String forwardedFor) throws Exception {
        SslContextFactory.Client trust = new SslContextFactory.Client();
        trust.setTrustStore(tls.trustStore());
        ClientConnector connector = new ClientConnector();
        connector.setSslContextFactory(trust);
        connector.setBindAddress(new InetSocketAddress(InetAddress.getByName(source), 0));
        HttpClient client = new HttpClient(new HttpClientTransportOverHTTP(connector));
        client.start();
        try {
            return client.POST(proxy.baseUrl() + "/cometd")
                    .headers(h -> {
                        h.put("Origin", proxy.baseUrl());
                        if (forwardedFor != null) {
                            h.put("X-Forwarded-For", forwardedFor);
                        }
                    })
                    .body(new StringRequestContent("application/json", "[{\"channel\":\"/meta/handshake\","
                            + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]"))
                    .timeout(10, TimeUnit.SECONDS)
                    .send();
        } finally {
            client.stop();
        }
    }

    private static boolean successful(ContentResponse response) {
        return response.getStatus() == 200 && response.getContentAsString().contains("\"successful\":true");
    }
}
