package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ClientRequest;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.longpoll.testing.HttpWire;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The browser cookie on WebSocket upgrades: set when missing, a session bound to the cookie its client presents, and
 * clients that never send cookies still resuming by clientId (the rule is in the module README).
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

    private static String cookieValue(List<String> setCookies) {
        assertEquals(1, setCookies.size(), setCookies.toString());
        String header = setCookies.get(0);
        return header.substring("BAYEUX_BROWSER=".length(), header.indexOf(';'));
    }

    @Test
    void upgradeWithoutTheCookieGetsOneSet() throws Exception {
        try (RawSocket socket = socket(null)) {
            List<String> setCookies = socket.setCookies();
            assertEquals(1, setCookies.size(), setCookies.toString());
            String header = setCookies.get(0);
            assertTrue(header.matches("BAYEUX_BROWSER=[A-Za-z0-9_-]{24}; Path=/; HttpOnly; SameSite=Lax"), header);
        }
    }

    @Test
    void upgradeWithTheCookieGetsNoNewOne() throws Exception {
        try (RawSocket socket = socket("BAYEUX_BROWSER=mine")) {
            assertEquals(List.of(), socket.setCookies());
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
    void sessionIsBoundToTheBrowserOnceItPresentsTheCookieItWasGiven() throws Exception {
        String clientId;
        String cookie;
        try (ScriptedClient firstVisit = new ScriptedClient(socket(null))) {
            firstVisit.handshake();
            firstVisit.connect();
            clientId = firstVisit.clientId();
            cookie = "BAYEUX_BROWSER=" + cookieValue(((RawSocket) firstVisit.wire()).setCookies());
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
     * The Faye client's order: it opens its socket before it handshakes over HTTP, so the upgrade carries no cookie and
     * the handshake carries the one the upgrade response set. The socket is entitled to the id it set; another
     * cookieless socket is not.
     */
    @Test
    void aSocketMayActForTheSessionBoundToTheCookieItsOwnUpgradeSet() throws Exception {
        try (RawSocket socketFirst = socket(null);
                ScriptedClient stranger = new ScriptedClient(socket(null))) {
            String cookie = "BAYEUX_BROWSER=" + cookieValue(socketFirst.setCookies());
            String clientId;
            try (ScriptedClient polling = new ScriptedClient(new HttpWire(clients.http(), server.httpUri(), cookie, false))) {
                polling.handshake();
                clientId = polling.clientId();
            }
            ScriptedClient onSocket = new ScriptedClient(socketFirst).resume(clientId);
            Map<String, Object> connected = onSocket.connect();
            assertEquals(true, connected.get("successful"), connected.toString());
            assertEquals(true, onSocket.subscribe("/faye/order").get("successful"));
            assertEquals("402::session_unknown", stranger.resume(clientId).connect().get("error"));
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

