package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerSession;
import io.weft.server.api.ServerStats;
import io.weft.server.testing.Await;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.netty.testing.NettyLeaks;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link BayeuxServer#getStats()} end to end: one scripted conversation over real sockets, on embedded Jetty and in
 * Tomcat, over websocket, long-polling and callback-polling. Each counter moves by exactly what the conversation did,
 * keyed by the transport's connection type, and the gauges show each moment of it (server-core's {@code StatsTest} is
 * the same without sockets); bytes written, whose exact number is the encoding's, grow by at least the deliveries'.
 * Counters move when a reply or delivery is handed to a connection, gauges when the engine gets to a request, so each
 * moment is waited for on the stats, then read exactly.
 */
@Timeout(30)
class StatsEndToEndTest {
    private static final int PUBLISHES = 5;
    private static final String ROOM = "/stats/room";
    private static final String ASIDE = "/stats/aside";
    private static final String DENIED = "403::handshake_denied";
    private static final String UNKNOWN = "402::session_unknown";

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

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everywhere")
    void aConversationMovesEachCounterByWhatItDid(Container container, TransportKind transport) throws Exception {
        server = container.start();
        server.bayeux().setSecurityPolicy(new RefusesMallory());
        String type = transport.connectionType();
        try (ScriptedClient alice = client(transport, "alice");
                ScriptedClient bob = client(transport, "bob");
                ScriptedClient mallory = client(transport, "mallory");
                ScriptedClient stranger = client(transport, "stranger")) {
            alice.handshake();
            bob.handshake();
            ServerStats handshaken = awaitStats("two handshakes accepted", s -> s.handshakesAccepted() >= 2);
            assertEquals(2, handshaken.handshakesAccepted());
            assertEquals(Map.of("none", 2), handshaken.sessionsByConnectionType(), "neither has connected yet");
            assertEquals(0, handshaken.heldConnects());

            Map<String, Object> refused = handshakeAs(mallory, "mallory");
            assertEquals(DENIED, refused.get("error"), refused.toString());
            ServerStats denied = awaitStats("a handshake refused", s -> !s.handshakesRefused().isEmpty());
            assertEquals(Map.of(DENIED, 1L), denied.handshakesRefused());
            assertEquals(Map.of(DENIED, 1L), denied.errorsByReason());
            assertEquals(2, denied.handshakesAccepted());
            assertEquals(2, denied.sessions(), "a refused handshake leaves no session: " + denied);

            assertEquals(true, alice.subscribe(ROOM).get("successful"));
            assertEquals(true, bob.subscribe(ROOM).get("successful"));
            assertEquals(true, bob.subscribe(ASIDE).get("successful"));
            ServerStats subscribed = awaitStats("three subscriptions", s -> s.subscriptions() >= 3);
            assertEquals(3, subscribed.subscriptions());
            assertEquals(3, subscribed.channels(), ROOM + ", " + ASIDE + " and their parent /stats");

            assertEquals(true, alice.connect().get("successful"));
            assertEquals(true, bob.connect().get("successful"));
            ServerStats connected = awaitStats("both clients' next connects held", s -> s.heldConnects() == 2);
            assertEquals(Map.of(type, 2), connected.sessionsByConnectionType());
            assertEquals(Map.of(), connected.deliveriesByConnectionType());

            for (int i = 0; i < PUBLISHES; i++) {
                assertEquals(true, bob.publish(ROOM, "message " + i).get("successful"));
            }
            for (int i = 0; i < PUBLISHES; i++) {
                alice.awaitDelivery(ROOM, "message " + i);
                bob.awaitDelivery(ROOM, "message " + i); // broadcastToPublisher
            }
            ServerStats delivered = awaitStats("every delivery counted, and both connects held again",
                    s -> s.deliveries() >= 2 * PUBLISHES && s.deliveryLatency().count() >= 2 * PUBLISHES
                            && s.heldConnects() == 2);
            assertEquals(Map.of(type, 2L * PUBLISHES), delivered.deliveriesByConnectionType(), delivered.toString());
            assertEquals(2L * PUBLISHES, delivered.deliveryLatency().count(), "one latency per delivery");
            assertEquals(PUBLISHES, delivered.messagesReceived());
            assertEquals(Map.of(type, 2), delivered.sessionsByConnectionType());
            assertEquals(typesWritten(transport), delivered.bytesWrittenByConnectionType().keySet(),
                    "every byte was written on this transport");
            long bytes = bytesWritten(delivered, type) - bytesWritten(connected, type);
            assertTrue(bytes >= 2 * deliveredBytes(), "the deliveries' " + 2 * deliveredBytes()
                    + " bytes at least, and the publishes' replies; counted " + bytes + ": " + delivered);

            Map<String, Object> unknown = stranger.resume("no-such-session").publish(ROOM, "from nobody");
            assertEquals(UNKNOWN, unknown.get("error"), unknown.toString());
            ServerStats strange = awaitStats("the stranger's error counted", s -> s.errorsByReason().size() >= 2);
            assertEquals(Map.of(DENIED, 1L, UNKNOWN, 1L), strange.errorsByReason());
            assertEquals(PUBLISHES + 1, strange.messagesReceived(), "bob's publishes and the stranger's");
            assertEquals(Map.of(DENIED, 1L), strange.handshakesRefused(), "a 402 is no refused handshake");

            assertEquals(true, alice.disconnect().get("successful"));
            ServerStats after = awaitStats("alice's session ended and her held connect answered",
                    s -> s.sessions() == 1 && s.heldConnects() == 1);
            assertEquals(Map.of(type, 1), after.sessionsByConnectionType());
            assertEquals(2, after.subscriptions(), "bob's two are left");
            assertEquals(3, after.channels(), "bob still subscribes to both channels");
            assertEquals(2, after.handshakesAccepted());
            assertEquals(Map.of(DENIED, 1L), after.handshakesRefused());
            assertEquals(PUBLISHES + 1, after.messagesReceived());
            assertEquals(Map.of(type, 2L * PUBLISHES), after.deliveriesByConnectionType(),
                    "a disconnect and the answer to its held connect are replies, not deliveries");
            assertEquals(2L * PUBLISHES, after.deliveryLatency().count());
            assertEquals(Map.of(DENIED, 1L, UNKNOWN, 1L), after.errorsByReason(),
                    "the held connect a disconnect ends is answered successfully");
            assertEquals(0, after.slowConsumerDisconnects());
            assertEquals(0, after.messagesResent());
            assertEquals(typesWritten(transport), after.bytesWrittenByConnectionType().keySet());
            assertTrue(bytesWritten(after, type) > bytesWritten(strange, type),
                    "the disconnect's reply and the held connect's answer were written too: " + after);
        }
    }

    private ScriptedClient client(TransportKind transport, String browser) throws Exception {
        return new ScriptedClient(transport.open(server, clients, "BAYEUX_BROWSER=" + browser));
    }

    /**
     * The connection types a client of {@code transport} is written to: its own, and for eventsource also
     * long-polling, the type of the POSTs that answer its uplink.
     */
    private static Set<String> typesWritten(TransportKind transport) {
        return transport == TransportKind.EVENTSOURCE ? Set.of("eventsource", "long-polling")
                : Set.of(transport.connectionType());
    }

    private static long bytesWritten(ServerStats stats, String connectionType) {
        return stats.bytesWrittenByConnectionType().getOrDefault(connectionType, 0L);
    }

    /**
     * The least one subscriber's deliveries of the publishes take encoded: each is at least its channel and data,
     * {@code {"channel":"/stats/room","data":"message 0"}}.
     */
    private static long deliveredBytes() {
        long bytes = 0;
        for (int i = 0; i < PUBLISHES; i++) {
            String delivery = Json.write(Map.of("channel", ROOM, "data", "message " + i));
            bytes += delivery.getBytes(StandardCharsets.UTF_8).length;
        }
        return bytes;
    }

    /** A handshake that names its user in {@code ext}, as an application's login would. */
    private static Map<String, Object> handshakeAs(ScriptedClient client, String user) {
        return client.call(client.message("/meta/handshake", "version", "1.0", "supportedConnectionTypes",
                List.of(client.wire().connectionType()), "ext", Map.of("user", user)));
    }

    /**
     * The stats once {@code reached} holds of them: counters are handed on with the writes they count and gauges
     * follow the engine's threads, so a moment is waited for, never assumed; fails with the last reading.
     */
    private ServerStats awaitStats(String moment, Predicate<ServerStats> reached) throws InterruptedException {
        return Await.until(Duration.ofSeconds(5), () -> server.bayeux().getStats(), reached, moment);
    }

    /** Refuses the handshakes of the user {@code mallory}, with the engine's {@code 403::handshake_denied}. */
    private static final class RefusesMallory implements SecurityPolicy {
        @Override
        public boolean canHandshake(BayeuxServer bayeux, ServerSession session, Message handshake) {
            Map<String, Object> ext = handshake.getExt();
            return ext == null || !"mallory".equals(ext.get("user"));
        }
    }
}
