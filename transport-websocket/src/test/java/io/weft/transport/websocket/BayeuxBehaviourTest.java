package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The behaviour every transport must show, end to end over real sockets, written as raw Bayeux JSON: on embedded
 * Jetty and in a real Tomcat 11 (the WAR wiring), over websocket, long-polling and callback-polling.
 */
@Timeout(30)
class BayeuxBehaviourTest {
    @RegisterExtension
    static final Clients clients = new Clients();
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
}
