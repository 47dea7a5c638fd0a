package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.bayeux.MessageDecodeException;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.Json;
import io.weft.server.testing.ManualScheduler;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The first-visit race (docs/protocol.md, "Browsers"): a browser without a cookie opens its socket while it handshakes
 * over HTTP; the handshake's reply gives it a cookie, its next HTTP request binds the session to it, and the socket,
 * which presented no cookie when it opened and never can, acts for the session. It is admitted, and it alone: not a
 * second cookieless socket, not one from another address, not one later than the window, not for a session whose
 * client had a cookie, and not a cookieless one-shot request.
 */
class FirstVisitRaceTest {
    private static final String BROWSER = "cookie-from-the-handshake";

    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);
    private final InetAddress home = address("192.0.2.7");
    private final InMemoryTransport http = InMemoryTransport.polling(server).from(home);
    private final InMemoryTransport sockets = InMemoryTransport.websocket(server).from(home);

    @AfterEach
    void close() {
        server.close();
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException x) {
            throw new AssertionError(x);
        }
    }

    /** An HTTP handshake that presents {@code cookie} (null: none); returns the clientId. */
    private String handshakeOverHttp(String cookie) throws Exception {
        String reply = http.request(cookie, "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\",\"websocket\"]}]").get(5, TimeUnit.SECONDS);
        return (String) Json.array(reply).get(0).get("clientId");
    }

    /** The browser's next HTTP request, which presents the cookie the handshake's reply set: it binds the session. */
    private void bindOverHttp(String clientId) throws Exception {
        String reply = http.request(BROWSER, "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\","
                + "\"clientId\":\"" + clientId + "\",\"advice\":{\"timeout\":0}}]").get(5, TimeUnit.SECONDS);
        assertEquals(true, Json.array(reply).get(0).get("successful"), reply);
    }

    private static Map<String, Object> subscribe(InMemoryTransport.Socket socket, String clientId, String channel)
            throws MessageDecodeException, InterruptedException {
        socket.send("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"" + channel + "\",\"clientId\":\""
                + clientId + "\"}]");
        String frame = socket.nextFrame(5);
        List<Map<String, Object>> replies = Json.array(frame);
        return replies.get(0);
    }

    private static void holdConnect(InMemoryTransport.Socket socket, String clientId) throws MessageDecodeException {
        socket.send("[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\""
                + clientId + "\"}]");
    }

    @Test
    void theCookielessSocketOfTheRaceActsForTheSessionTheHandshakesCookieBound() throws Exception {
        InMemoryTransport.Socket socket = sockets.open(null); // opened with the handshake, without a cookie
        String clientId = handshakeOverHttp(null);
        bindOverHttp(clientId);
        scheduler.advance(300); // the 101 arrives late

        assertEquals(true, subscribe(socket, clientId, "/faye/room").get("successful"));
        // It stays admitted for the session's life, past the window (its held connect keeps the session alive).
        holdConnect(socket, clientId);
        scheduler.advance(SessionImpl.FIRST_VISIT_RACE_MILLIS + 1);
        assertEquals(true, subscribe(socket, clientId, "/faye/later").get("successful"));
        // The browser's HTTP requests, with its cookie, are still admitted: nothing replaced it.
        bindOverHttp(clientId);
    }

    @Test
    void aSocketThatActsBeforeTheBindingStaysAdmittedAfterIt() throws Exception {
        InMemoryTransport.Socket socket = sockets.open(null);
        String clientId = handshakeOverHttp(null);
        assertEquals(true, subscribe(socket, clientId, "/first").get("successful"));
        bindOverHttp(clientId);
        holdConnect(socket, clientId);
        scheduler.advance(SessionImpl.FIRST_VISIT_RACE_MILLIS + 1);
        assertEquals(true, subscribe(socket, clientId, "/second").get("successful"));
    }

    @Test
    void onlyTheFirstCookielessSocketIsAdmitted() throws Exception {
        InMemoryTransport.Socket faye = sockets.open(null);
        InMemoryTransport.Socket second = sockets.open(null);
        String clientId = handshakeOverHttp(null);
        bindOverHttp(clientId);
        assertEquals(true, subscribe(faye, clientId, "/mine").get("successful"));
        assertEquals("402::session_unknown", subscribe(second, clientId, "/theirs").get("error"));
    }

    @Test
    void aCookielessSocketFromAnotherAddressIsRefused() throws Exception {
        InMemoryTransport.Socket elsewhere = InMemoryTransport.websocket(server).from(address("198.51.100.9"))
                .open(null);
        String clientId = handshakeOverHttp(null);
        bindOverHttp(clientId);
        assertEquals("402::session_unknown", subscribe(elsewhere, clientId, "/x").get("error"));
    }

    @Test
    void aCookielessSocketAfterTheWindowIsRefused() throws Exception {
        String clientId = handshakeOverHttp(null);
        bindOverHttp(clientId);
        scheduler.advance(SessionImpl.FIRST_VISIT_RACE_MILLIS + 1);
        assertEquals("402::session_unknown", subscribe(sockets.open(null), clientId, "/x").get("error"));
    }

    @Test
    void aSessionWhoseHandshakePresentedACookieAdmitsNoCookielessSocket() throws Exception {
        String clientId = handshakeOverHttp(BROWSER);
        assertEquals("402::session_unknown", subscribe(sockets.open(null), clientId, "/x").get("error"));
    }

    @Test
    void aCookielessRequestIsRefusedOnceTheSessionIsBound() throws Exception {
        sockets.open(null);
        String clientId = handshakeOverHttp(null);
        bindOverHttp(clientId);
        String reply = http.request(null, "[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/x\",\"clientId\":\""
                + clientId + "\"}]").get(5, TimeUnit.SECONDS);
        assertEquals("402::session_unknown", Json.array(reply).get(0).get("error"), reply);
    }
}
