package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.testing.Await;
import io.weft.server.testing.Inbox;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.netty.testing.NettyLeaks;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The behaviour every transport must show, end to end over real sockets, written as raw Bayeux JSON: on embedded
 * Jetty, and as a web application (the WAR wiring) on Jetty's Servlet container and in a real Tomcat 11, over
 * websocket, long-polling, callback-polling and eventsource. One behaviour
 * runs on the polling types only: the multiple-clients advice, which protects a browser's HTTP connections and has
 * nothing to protect on a socket (the engine holds a websocket's connects whatever the browser holds elsewhere).
 * A client that goes away while its connect is held is noticed everywhere: Tomcat does not tell an asynchronous
 * request that its client closed the connection, so there the Servlet's heartbeats find it out (transport-longpoll's
 * {@code HeldResponseHeartbeats}, within about 2 s).
 */
@Timeout(30)
class BayeuxBehaviourTest {
    @RegisterExtension
    static final Clients clients = new Clients();
    @RegisterExtension
    static final NettyLeaks leaks = new NettyLeaks();
    private BayeuxHost server;

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    static Stream<Arguments> everywhere() {
        return Container.with(TransportKind.values());
    }


    static Stream<Arguments> polling() {
        return Container.with(TransportKind.LONG_POLLING, TransportKind.CALLBACK_POLLING);
    }

    private int heldConnects() {
        return server.bayeux().getStats().heldConnects();
    }

    private ScriptedClient client(TransportKind transport, String cookie) throws Exception {
        return new ScriptedClient(transport.open(server, clients, cookie));
    }

    private static String browser(String id) {
        return "BAYEUX_BROWSER=" + id;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everywhere")
    void handshakeGivesAClientIdAndOffersTheTransport(Container container, TransportKind transport) throws Exception {
        server = container.start();
        try (ScriptedClient client = client(transport, browser("b1"))) {
            Map<String, Object> reply = client.handshake();
            assertEquals(true, reply.get("successful"), reply.toString());
            assertNotNull(client.clientId());
            assertTrue(((List<?>) reply.get("supportedConnectionTypes")).contains(client.wire().connectionType()),
                    reply.toString());
            assertEquals(true, client.connect().get("successful"));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everywhere")
    void subscriberReceivesWhatAnotherClientPublishes(Container container, TransportKind transport) throws Exception {
        server = container.start();
        try (ScriptedClient alice = client(transport, browser("alice"));
                ScriptedClient bob = client(transport, browser("bob"))) {
            alice.handshake();
            alice.connect();
            assertEquals(true, alice.subscribe("/chat/room7").get("successful"));
            bob.handshake();
            bob.connect();

            assertEquals(true, bob.publish("/chat/room7", Map.of("text", "hello")).get("successful"));

            Map<String, Object> delivery = alice.awaitDelivery("/chat/room7", Map.of("text", "hello"));
            assertNull(delivery.get("clientId"), "deliveries do not reveal the publisher's clientId");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everywhere")
    void unsubscribedClientNoLongerReceives(Container container, TransportKind transport) throws Exception {
        server = container.start();
        try (ScriptedClient alice = client(transport, browser("alice"));
                ScriptedClient bob = client(transport, browser("bob"))) {
            alice.handshake();
            alice.connect();
            alice.subscribe("/chat/a");
            alice.subscribe("/chat/b");
            bob.handshake();
            bob.connect();
            bob.publish("/chat/a", "first");
            alice.awaitDelivery("/chat/a", "first");

            assertEquals(true, alice.unsubscribe("/chat/a").get("successful"));
            bob.publish("/chat/a", "after unsubscribe");
            bob.publish("/chat/b", "marker");

            // A session's deliveries keep their order: had the first one been delivered, it would precede the marker.
            alice.awaitDelivery("/chat/b", "marker");
            assertNull(alice.inbox().poll(Inbox.channel("/chat/a"), 0), alice.inbox().snapshot().toString());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everywhere")
    void disconnectEndsTheSession(Container container, TransportKind transport) throws Exception {
        server = container.start();
        try (ScriptedClient alice = client(transport, browser("alice"))) {
            alice.handshake();
            alice.connect();
            alice.subscribe("/chat/room7");

            assertEquals(true, alice.disconnect().get("successful"));

            assertNull(server.bayeux().getSession(alice.clientId()));
            Map<String, Object> reply = alice.publish("/chat/room7", "too late");
            assertEquals("402::session_unknown", reply.get("error"), reply.toString());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everywhere")
    void unknownClientIsToldToHandshake(Container container, TransportKind transport) throws Exception {
        server = container.start();
        try (ScriptedClient stranger = client(transport, browser("stranger"))) {
            stranger.resume("not-a-session");
            Map<String, Object> reply = stranger.connect();
            assertEquals(false, reply.get("successful"));
            assertEquals("402::session_unknown", reply.get("error"));
            assertEquals("handshake", ((Map<?, ?>) reply.get("advice")).get("reconnect"));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everywhere")
    void reloadedPageResumesItsSession(Container container, TransportKind transport) throws Exception {
        server = container.start();
        String clientId;
        try (ScriptedClient page = client(transport, browser("tab"))) {
            page.handshake();
            page.connect();
            page.subscribe("/chat/room7");
            clientId = page.clientId();
        }
        try (ScriptedClient reloaded = client(transport, browser("tab"));
                ScriptedClient publisher = client(transport, browser("other"))) {
            reloaded.resume(clientId);
            assertEquals(true, reloaded.connect().get("successful"));
            publisher.handshake();
            publisher.publish("/chat/room7", "after the reload");

            reloaded.awaitDelivery("/chat/room7", "after the reload");
            assertEquals(true, reloaded.publish("/chat/room7", "back").get("successful"));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everywhere")
    void clientIdFromAnotherBrowserIsRefused(Container container, TransportKind transport) throws Exception {
        server = container.start();
        try (ScriptedClient owner = client(transport, browser("owner"));
                ScriptedClient thief = client(transport, browser("thief"));
                ScriptedClient cookieless = client(transport, null)) {
            owner.handshake();
            owner.connect();
            owner.subscribe("/chat/room7");

            Map<String, Object> stolen = thief.resume(owner.clientId()).subscribe("/chat/room7");
            assertEquals("402::session_unknown", stolen.get("error"), stolen.toString());
            Map<String, Object> anonymous = cookieless.resume(owner.clientId()).publish("/chat/room7", "x");
            assertEquals("402::session_unknown", anonymous.get("error"), anonymous.toString());

            assertNotNull(server.bayeux().getSession(owner.clientId()), "the refusals did not harm the session");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everywhere")
    void heldConnectIsAnsweredWhenItsTimeoutExpires(Container container, TransportKind transport) throws Exception {
        server = container.start(ServerOptions.builder().timeout(500).build());
        try (ScriptedClient client = client(transport, browser("b1"))) {
            client.handshake();
            long start = System.nanoTime();
            client.connect(); // answered at once; the client's next connect is held

            Map<String, Object> reply = client.inbox().take(Inbox.channel("/meta/connect"), ScriptedClient.WAIT,
                    "the held connect's reply");
            long heldMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(true, reply.get("successful"), reply.toString());
            assertEquals(500, ((Map<?, ?>) reply.get("advice")).get("timeout"), reply.toString());
            assertTrue(heldMillis >= 400, "answered after " + heldMillis + " ms, not held for the timeout");
            assertNotNull(server.bayeux().getSession(client.clientId()), "the session lives on");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everywhere")
    void clientThatGoesAwayKeepsItsQueueUntilItExpires(Container container, TransportKind transport)
            throws Exception {
        server = container.start(ServerOptions.builder().maxInterval(1500).build());
        ScriptedClient alice = client(transport, browser("alice"));
        try (ScriptedClient bob = client(transport, browser("bob"))) {
            alice.handshake();
            alice.connect();
            alice.subscribe("/alerts");
            String aliceId = alice.clientId();
            Await.until(Duration.ofSeconds(5), this::heldConnects, n -> n == 1, "alice's connect is held");

            alice.close(); // the page goes away: its held request aborted, or its socket closed
            Await.until(Duration.ofSeconds(5), this::heldConnects, n -> n == 0, "the server noticed alice went");
            bob.handshake();
            assertEquals(true, bob.publish("/alerts", "while away").get("successful"));

            ServerSession session = server.bayeux().getSession(aliceId);
            assertNotNull(session);
            assertEquals(1, session.getQueueSize(), "the message waits in the queue, not in a dead connection");
            Await.until(Duration.ofSeconds(10), () -> server.bayeux().getSession(aliceId) == null,
                    "the session expires after maxInterval");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("polling")
    void secondTabOfTheSameBrowserIsAdvisedOfMultipleClients(Container container, TransportKind transport)
            throws Exception {
        server = container.start();
        try (ScriptedClient firstTab = client(transport, browser("tabs"));
                ScriptedClient secondTab = client(transport, browser("tabs"))) {
            firstTab.handshake();
            firstTab.connect();
            Await.until(Duration.ofSeconds(5), this::heldConnects, n -> n == 1, "the first tab's connect is held");
            secondTab.handshake();
            secondTab.connect(); // answered at once; its next connect would be the browser's second held one

            Map<String, Object> reply = secondTab.inbox().take(Inbox.channel("/meta/connect"), ScriptedClient.WAIT,
                    "the second tab's next connect reply");
            Map<?, ?> advice = (Map<?, ?>) reply.get("advice");
            assertEquals(true, advice.get("multiple-clients"), reply.toString());
            assertEquals(2000, advice.get("interval"), reply.toString());
            assertEquals(1, heldConnects(), "the first tab keeps its held connect");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everywhere")
    void sessionIsBoundToTheFirstCookieItsClientPresents(Container container, TransportKind transport)
            throws Exception {
        server = container.start();
        try (ScriptedClient client = client(transport, null);
                ScriptedClient sameClientNoCookie = client(transport, null);
                ScriptedClient sameClientWithCookie = client(transport, browser("mine"));
                ScriptedClient laterNoCookie = client(transport, null);
                ScriptedClient otherBrowser = client(transport, browser("other"))) {
            client.handshake();
            String clientId = client.clientId();
            assertEquals(true, client.subscribe("/a").get("successful"));
            // setting a cookie is not presenting it: a client that never sends cookies goes on by clientId
            Map<String, Object> byId = sameClientNoCookie.resume(clientId).publish("/a", "by clientId");
            assertEquals(true, byId.get("successful"), byId.toString());

            Map<String, Object> presented = sameClientWithCookie.resume(clientId).publish("/a", "with the cookie");
            assertEquals(true, presented.get("successful"), presented.toString());

            Map<String, Object> refused = laterNoCookie.resume(clientId).publish("/a", "no cookie now");
            assertEquals("402::session_unknown", refused.get("error"), "bound to the cookie now: " + refused);
            Map<String, Object> foreign = otherBrowser.resume(clientId).publish("/a", "another browser");
            assertEquals("402::session_unknown", foreign.get("error"), foreign.toString());
            assertNotNull(server.bayeux().getSession(clientId), "the refusals did not harm the session");
        }
    }
}
