package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ClientRequest;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.longpoll.testing.Browser;
import io.weft.transport.longpoll.testing.HttpWire;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The browser cookie on WebSocket upgrades: read, never set; a session bound to the cookie its client presents;
 * clients that never send cookies still resuming by clientId; and the first-visit race, a socket opened without a
 * cookie while the browser handshakes over HTTP (the rules are in the module README and docs/protocol.md).
 */
@Timeout(30)
class BrowserBindingTest {
    @RegisterExtension
    static final Clients clients = new Clients();
    private EmbeddedServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = EmbeddedServer.start();
    }

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    private RawSocket socket(String cookie) throws Exception {
        return RawSocket.connect(clients.webSocket(), server.wsUri(), cookie);
    }

    /**
     * A socket's cookies are fixed when it opens, so a cookie on its 101 could serve only the browser's other
     * requests; and an upgrade without one may race the browser's HTTP handshake, whose reply sets the browser's
     * cookie, which a cookie on the 101 would then replace.
     */
    @Test
    void anUpgradeNeverSetsTheBrowserCookie() throws Exception {
        try (RawSocket without = socket(null); RawSocket with = socket("BAYEUX_BROWSER=mine")) {
            assertEquals(List.of(), without.setCookies());
            assertEquals(List.of(), with.setCookies());
        }
    }

    @Test
    void clientThatNeverSendsCookiesKeepsResumingItsSessionByClientId() throws Exception {
        String clientId;
        try (ScriptedClient first = new ScriptedClient(socket(null))) {
            first.handshake();
            first.connect();
            first.subscribe("/chat/room7");
            clientId = first.clientId();
        }
        for (int reconnect = 0; reconnect < 2; reconnect++) {
            try (ScriptedClient again = new ScriptedClient(socket(null)).resume(clientId)) {
                assertEquals(true, again.connect().get("successful"), "reconnect " + reconnect);
                assertEquals(true, again.publish("/chat/room7", "back " + reconnect).get("successful"));
                again.awaitDelivery("/chat/room7", "back " + reconnect);
            }
        }
    }

    @Test
    void messagesPublishedWhileTheSocketIsClosedArriveOnTheNextOne() throws Exception {
        String clientId;
        try (ScriptedClient page = new ScriptedClient(socket("BAYEUX_BROWSER=tab"))) {
            page.handshake();
            page.connect();
            page.subscribe("/chat/room7");
            clientId = page.clientId();
        }
        server.awaitOpenSockets(0);
        try (ScriptedClient publisher = new ScriptedClient(socket("BAYEUX_BROWSER=other"))) {
            publisher.handshake();
            assertEquals(true, publisher.publish("/chat/room7", "while away").get("successful"));
        }
        try (ScriptedClient reloaded = new ScriptedClient(socket("BAYEUX_BROWSER=tab")).resume(clientId)) {
            assertEquals(true, reloaded.connect().get("successful"));
            reloaded.awaitDelivery("/chat/room7", "while away");
        }
    }

    @Test
    void sessionIsBoundToTheBrowserOnceItPresentsACookie() throws Exception {
        String clientId;
        // The cookie the browser got meanwhile from an HTTP reply (a websocket's 101 sets none).
        String cookie = "BAYEUX_BROWSER=fromHttp";
        try (ScriptedClient firstVisit = new ScriptedClient(socket(null))) {
            firstVisit.handshake();
            firstVisit.connect();
            clientId = firstVisit.clientId();
        }
        try (ScriptedClient reload = new ScriptedClient(socket(cookie)).resume(clientId)) {
            assertEquals(true, reload.connect().get("successful"));
        }
        try (ScriptedClient cookieless = new ScriptedClient(socket(null)).resume(clientId);
                ScriptedClient otherBrowser = new ScriptedClient(socket("BAYEUX_BROWSER=other")).resume(clientId);
                ScriptedClient sameBrowser = new ScriptedClient(socket(cookie)).resume(clientId)) {
            Map<String, Object> refused = cookieless.connect();
            assertEquals("402::session_unknown", refused.get("error"), refused.toString());
            assertEquals("402::session_unknown", otherBrowser.connect().get("error"));
            assertEquals(true, sameBrowser.connect().get("successful"));
        }
    }

    @Test
    void sessionCreatedOverLongPollingIsReachableOnlyFromItsBrowsersSockets() throws Exception {
        String clientId;
        try (ScriptedClient polling = new ScriptedClient(
                new HttpWire(clients.http(), server.httpUri(), "BAYEUX_BROWSER=poller", false))) {
            polling.handshake();
            assertEquals(true, polling.connect().get("successful"));
            clientId = polling.clientId();
        }
        try (ScriptedClient cookieless = new ScriptedClient(socket(null)).resume(clientId);
                ScriptedClient otherBrowser = new ScriptedClient(socket("BAYEUX_BROWSER=other")).resume(clientId);
                ScriptedClient sameBrowser = new ScriptedClient(socket("BAYEUX_BROWSER=poller")).resume(clientId)) {
            assertEquals("402::session_unknown", cookieless.connect().get("error"));
            assertEquals("402::session_unknown", otherBrowser.connect().get("error"));
            // The same browser moving from long-polling to websocket keeps its session.
            assertEquals(true, sameBrowser.connect().get("successful"));
            assertEquals(true, sameBrowser.subscribe("/upgraded").get("successful"));
        }
    }

    @Test
    void socketsCannotTakeOverASessionCreatedByAnotherBrowser() throws Exception {
        try (ScriptedClient owner = new ScriptedClient(socket("BAYEUX_BROWSER=owner"));
                ScriptedClient intruder = new ScriptedClient(socket(null))) {
            owner.handshake();
            owner.connect();
            owner.subscribe("/private");

            intruder.resume(owner.clientId());
            assertEquals("402::session_unknown", intruder.subscribe("/private").get("error"));
            assertEquals("402::session_unknown", intruder.connect().get("error"));

            // The owner's socket is still the one the session pushes to.
            owner.publish("/private", "still mine");
            owner.awaitDelivery("/private", "still mine");
        }
    }

    /**
     * The first-visit race, as the Faye client runs it: the socket opens without a cookie while the handshake goes
     * over HTTP without one; the handshake's reply gives the browser its cookie and its next HTTP request binds the
     * session to it; then the socket acts for the session. It is admitted (before, the 101 had set another cookie
     * that replaced the HTTP one in the browser, and the socket was refused 402); the browser's cookie still reaches
     * the session over HTTP; a second cookieless socket is refused.
     */
    @Test
    void theSocketOfABrowsersFirstVisitActsForTheSessionItsHttpHandshakeMade() throws Exception {
        try (RawSocket socketFirst = socket(null);
                ScriptedClient stranger = new ScriptedClient(socket(null))) {
            Browser browser = new Browser(clients.http(), server.httpUri());
            ScriptedClient polling = HttpWire.client(browser);
            polling.handshake();
            String clientId = polling.clientId();
            assertNotNull(browser.cookie(), "the handshake's reply gives the browser its cookie");
            assertEquals(true, polling.connectNow().get(0).get("successful"), "its next request binds the session");

            ScriptedClient onSocket = new ScriptedClient(socketFirst).resume(clientId);
            Map<String, Object> subscribed = onSocket.subscribe("/faye/order");
            assertEquals(true, subscribed.get("successful"), subscribed.toString());
            assertEquals(true, onSocket.connect().get("successful"));
            assertEquals("402::session_unknown", stranger.resume(clientId).connect().get("error"));
            assertEquals(true, polling.publish("/faye/order", "over http, with the browser's cookie")
                    .get("successful"));
            onSocket.awaitDelivery("/faye/order", "over http, with the browser's cookie");
        }
    }

    /** The race admits a socket from the handshake's own address only. */
    @Test
    void aCookielessSocketFromAnotherAddressIsRefusedEvenInTheRace() throws Exception {
        HttpClient elsewhere = new HttpClient();
        elsewhere.setBindAddress(new InetSocketAddress("127.0.0.2", 0));
        WebSocketClient sockets = new WebSocketClient(elsewhere);
        sockets.start();
        try (ScriptedClient fromElsewhere = new ScriptedClient(RawSocket.connect(sockets, server.wsUri(), null))) {
            ScriptedClient polling = HttpWire.client(new Browser(clients.http(), server.httpUri()));
            polling.handshake();
            polling.connectNow();
            assertEquals("402::session_unknown", fromElsewhere.resume(polling.clientId()).connect().get("error"));
        } finally {
            sockets.stop();
        }
    }

    /** What a security policy reads over websocket: the upgrade request, less the WebSocket handshake's own headers. */
    @Test
    void theUpgradeRequestIsKeptWithTheSessionsHandshakenOnItsSocket() throws Exception {
        try (ScriptedClient client = new ScriptedClient(socket("app=abc; BAYEUX_BROWSER=tab"))) {
            client.handshake();
            ClientRequest request = server.bayeux().getSession(client.clientId()).getRequest();
            assertEquals("abc", request.getCookie("app"));
            assertEquals("tab", request.getCookie("BAYEUX_BROWSER"));
            assertTrue(request.getHeader("Host").startsWith("127.0.0.1:"), request.getHeader("Host"));
            assertNull(request.getHeader("Sec-WebSocket-Key"), "the WebSocket handshake's headers are not kept");
            assertNull(request.getHeader("Upgrade"));
            assertTrue(request.getRemoteAddress().getAddress().isLoopbackAddress(), request.toString());
            assertFalse(request.isSecure());
        }
    }
}

