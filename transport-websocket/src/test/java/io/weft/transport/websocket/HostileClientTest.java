package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import io.weft.server.api.Extension;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.ext.AcknowledgedMessagesExtension;
import io.weft.server.testing.Await;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.netty.testing.NettyLeaks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The hostile-client suite: every connection type (websocket, long-polling, callback-polling) sent what an attacker
 * would send, one test per kind of harm. Whatever is sent, the answer comes within {@link Probe#ANSWER_SECONDS} and
 * is a Bayeux error, a 4xx or a close with a reason (never a 500, a hang or a stack trace), and a well-behaved
 * client on the same server, from another address (127.0.0.2), carries on untouched. On embedded Jetty and on Netty.
 *
 * <p>What one connection type alone can be made to do is tested beside its transport: WebSocket backpressure and batch
 * order (BackpressureTest), HTTP bodies, deadlines and CORS (transport-longpoll); the engine's own defences without
 * sockets in server-core (ChannelBoundsTest, SessionBoundsTest, RecipientIsolationTest, ExpiryAndCloseTest).
 */
@Timeout(60)
class HostileClientTest {
    @RegisterExtension
    static final Clients clients = new Clients();
    /** The bystander's clients: another address, so that it has its own share of every per-address bound. */
    @RegisterExtension
    static final Clients elsewhere = new Clients("127.0.0.2");
    @RegisterExtension
    static final NettyLeaks leaks = new NettyLeaks();
    private static final AtomicInteger browsers = new AtomicInteger();

    private BayeuxHost server;
    private ScriptedClient bystander;
    private final List<Probe> probes = new ArrayList<>();

    /** The mounts the suite runs on: embedded Jetty and Netty, each with every connection type the probes speak. */
    static Stream<Arguments> mounts() {
        return Stream.of(Container.JETTY, Container.NETTY).flatMap(mount -> Arrays.stream(Probe.Kind.values())
                .map(kind -> Arguments.of(mount, kind)));
    }

    private void start(Container mount, ServerOptions options) throws Exception {
        server = mount.start(options);
        bystander = new ScriptedClient(RawSocket.connect(elsewhere.webSocket(), server.wsUri(), browser()));
        bystander.handshake();
        bystander.connect();
        bystander.subscribe("/chat/room");
    }

    @AfterEach
    void stop() throws Exception {
        probes.forEach(Probe::close);
        if (bystander != null) {
            bystander.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static String browser() {
        return "BAYEUX_BROWSER=b" + browsers.incrementAndGet();
    }

    private Probe probe(Probe.Kind kind, String cookie) {
        Probe probe = new Probe(kind, server, clients, cookie);
        probes.add(probe);
        return probe;
    }

    /** A hostile client with a session: its probe and its clientId. */
    private record Hostile(Probe probe, String clientId) {
        Probe.Outcome send(String channel, String... fields) throws Exception {
            StringBuilder message = new StringBuilder("[{\"channel\":").append(Json.write(channel))
                    .append(",\"clientId\":\"").append(clientId).append('"');
            for (int i = 0; i < fields.length; i += 2) {
                message.append(",\"").append(fields[i]).append("\":").append(fields[i + 1]);
            }
            return probe.send(message.append("}]").toString());
        }
    }

    private Hostile hostile(Probe.Kind kind) throws Exception {
        Probe probe = probe(kind, browser());
        Probe.Outcome handshake = probe.send(handshake(kind));
        String clientId = (String) handshake.first().get("clientId");
        assertNotNull(clientId, handshake.toString());
        return new Hostile(probe, clientId);
    }

    private static String handshake(Probe.Kind kind) {
        return "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\""
                + kind.connectionType + "\"]}]";
    }

    /** The answer is a refusal: a Bayeux error with this prefix, or (for what HTTP refuses first) a 4xx. */
    private static void assertRefused(Probe.Outcome outcome, String errorPrefix) {
        if (outcome.answered()) {
            Object error = outcome.first().get("error");
            assertEquals(false, outcome.first().get("successful"), outcome.toString());
            assertTrue(String.valueOf(error).startsWith(errorPrefix), outcome.toString());
        } else {
            assertFine(outcome);
        }
    }

    /** Never a 500, never a stack trace: an answer, a 4xx with a one-line reason, or a close with a reason. */
    private static void assertFine(Probe.Outcome outcome) {
        if (outcome.answered()) {
            for (Map<String, Object> reply : outcome.replies()) {
                assertTrue(reply.containsKey("successful") || reply.containsKey("data"), outcome.toString());
            }
            return;
        }
        int status = outcome.status();
        boolean http4xx = status >= 400 && status < 500;
        boolean close = status >= 1000 && status < 5000 && status != 1011;
        assertTrue(http4xx || close, "refused with " + status + ": " + outcome.body());
        assertTrue(!outcome.body().contains("\tat ") && !outcome.body().contains("Exception"),
                "a stack trace or exception name reached the client: " + outcome.body());
    }

    /** The bystander's conversation goes on as if nothing happened. */
    private void othersCarryOn() {
        String text = "still here " + browsers.incrementAndGet();
        assertEquals(true, bystander.publish("/chat/room", text).get("successful"));
        bystander.awaitDelivery("/chat/room", text);
    }

    @ParameterizedTest
    @MethodSource("mounts")
    void channelNamesPastTheBoundsAreRefusedAtOnce(Container mount, Probe.Kind kind) throws Exception {
        start(mount, ServerOptions.defaults());
        Hostile hostile = hostile(kind);
        String longName = Json.write("/a".repeat(150));
        assertRefused(hostile.send("/meta/subscribe", "subscription", longName), "429:maxChannelLength");
        assertRefused(hostile.send("/a".repeat(150), "data", "1"), "429:maxChannelLength");
        assertRefused(hostile.send("/meta/subscribe", "subscription", Json.write("/a".repeat(33))),
                "429:maxChannelDepth");
        if (kind != Probe.Kind.CALLBACK_POLLING) {
            // A name of 10 KB: it used to take seconds and hundreds of MB; a GET this long is refused by HTTP first.
            String huge = Json.write("/a".repeat(5_000));
            assertRefused(hostile.send("/meta/subscribe", "subscription", huge), "429:maxChannelLength");
        }
        othersCarryOn();
    }

    @ParameterizedTest
    @MethodSource("mounts")
    void aLongSubscriptionArrayIsRefusedWithAnErrorReply(Container mount, Probe.Kind kind) throws Exception {
        start(mount, ServerOptions.defaults());
        Hostile hostile = hostile(kind);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < (kind == Probe.Kind.CALLBACK_POLLING ? 300 : 3_000); i++) {
            names.add("/c/" + i);
        }
        assertRefused(hostile.send("/meta/subscribe", "subscription", Json.write(names)),
                "429:maxSubscriptionsPerSession");
        othersCarryOn();
    }

    @ParameterizedTest
    @MethodSource("mounts")
    void aPublishCannotCarryAdviceOrReplyFieldsToSubscribers(Container mount, Probe.Kind kind) throws Exception {
        start(mount, ServerOptions.defaults());
        Hostile hostile = hostile(kind);
        Probe.Outcome published = hostile.send("/chat/room", "data", "\"boo\"", "id", "\"1\"", "successful", "false",
                "error", "\"402::session_unknown\"", "advice", "{\"reconnect\":\"none\",\"interval\":999999}",
                "ext", "{\"secret\":1}");
        assertEquals(true, published.first().get("successful"), published.toString());
        Map<String, Object> delivered = bystander.awaitDelivery("/chat/room", "boo");
        assertEquals(Map.of("channel", "/chat/room", "data", "boo"), delivered);
        othersCarryOn();
    }

    @ParameterizedTest
    @MethodSource("mounts")
    void oneBrowserCookieCannotHoldUnboundedSessions(Container mount, Probe.Kind kind) throws Exception {
        start(mount, ServerOptions.builder().maxLiveSessionsPerBrowser(3).build());
        String cookie = browser();
        for (int i = 0; i < 3; i++) {
            assertEquals(true, probe(kind, cookie).send(handshake(kind)).first().get("successful"));
        }
        Probe.Outcome refused = probe(kind, cookie).send(handshake(kind));
        assertRefused(refused, "429:maxLiveSessionsPerBrowser");
        assertEquals("handshake", ((Map<?, ?>) refused.first().get("advice")).get("reconnect"));
        othersCarryOn();
    }

    @ParameterizedTest
    @MethodSource("mounts")
    void oneAddressCannotHoldUnboundedSessions(Container mount, Probe.Kind kind) throws Exception {
        start(mount, ServerOptions.builder().maxSessionsPerAddress(3).build());
        for (int i = 0; i < 3; i++) {
            assertEquals(true, probe(kind, browser()).send(handshake(kind)).first().get("successful"));
        }
        assertRefused(probe(kind, browser()).send(handshake(kind)), "429:maxSessionsPerAddress");
        othersCarryOn();
    }

    @ParameterizedTest
    @MethodSource("mounts")
    void oneAddressCannotTakeTheWholeChannelTable(Container mount, Probe.Kind kind) throws Exception {
        start(mount, ServerOptions.builder().maxChannels(100).maxChannelsPerAddress(40).build());
        Hostile hostile = hostile(kind);
        int created = 0;
        Probe.Outcome outcome;
        while ((outcome = hostile.send("/meta/subscribe", "subscription", Json.write("/h/" + created)))
                .answered() && Boolean.TRUE.equals(outcome.first().get("successful"))) {
            created++;
            assertTrue(created <= 40, "past the address's share");
        }
        assertRefused(outcome, "429:maxChannelsPerAddress");
        assertEquals(39, created, "/h and 39 below it");
        Hostile another = hostile(kind);
        assertRefused(another.send("/meta/subscribe", "subscription", Json.write("/other")),
                "429:maxChannelsPerAddress");
        assertEquals(true, bystander.subscribe("/chat/elsewhere/new").get("successful"),
                "another address creates channels of its own");
        othersCarryOn();
    }

    @ParameterizedTest
    @MethodSource("mounts")
    void aSessionThatStopsReadingHoldsABoundedQueueInBytes(Container mount, Probe.Kind kind) throws Exception {
        start(mount, ServerOptions.defaults());
        Hostile hostile = hostile(kind);
        assertEquals(true, hostile.send("/meta/subscribe", "subscription", Json.write("/chat/room")).first()
                .get("successful"));
        hostile.probe().close(); // a socket stops pushing; polls simply stop coming
        ServerSession session = server.bayeux().getSession(hostile.clientId());
        String twentyKilobytes = "x".repeat(20 * 1024);
        for (int i = 0; i < 60; i++) {
            String text = i + twentyKilobytes;
            assertEquals(true, bystander.publish("/chat/room", text).get("successful"));
            bystander.awaitDelivery("/chat/room", text);
            assertTrue(session.getQueueSize() <= 512 / 20, "queued " + session.getQueueSize() + " of 20 KB each");
        }
        assertTrue(server.bayeux().getRefusals().get(Limit.QUEUE_BYTES) > 0);
        othersCarryOn();
    }

    @ParameterizedTest
    @MethodSource("mounts")
    void aClientThatRepeatsAnOldAcknowledgementGetsABoundedReplay(Container mount, Probe.Kind kind) throws Exception {
        start(mount, ServerOptions.builder().maxResendBytes(200 * 1024).build());
        server.bayeux().addExtension(new AcknowledgedMessagesExtension());
        Probe probe = probe(kind, browser());
        Probe.Outcome handshake = probe.send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"" + kind.connectionType + "\"],\"ext\":{\"ack\":true}}]");
        Hostile hostile = new Hostile(probe, (String) handshake.first().get("clientId"));
        assertEquals(true, hostile.send("/meta/subscribe", "subscription", Json.write("/chat/room")).first()
                .get("successful"));
        String tenKilobytes = "x".repeat(10 * 1024);
        for (int i = 0; i < 10; i++) {
            bystander.publish("/chat/room", i + tenKilobytes);
        }
        bystander.awaitDelivery("/chat/room", 9 + tenKilobytes);
        int received = 0;
        for (int request = 0; request < 60; request++) {
            Probe.Outcome replay = hostile.send("/meta/connect", "connectionType", Json.write(kind.connectionType),
                    "advice", "{\"timeout\":0}", "ext", "{\"ack\":0}");
            received += (int) replay.replies().stream().filter(m -> "/chat/room".equals(m.get("channel"))).count();
        }
        // Sent once (100 KB), then again as far as 200 KB of credit goes: about 30 messages, never 60 requests' worth.
        assertTrue(received >= 10 && received <= 10 + 21, received + " messages for 60 requests");
        assertTrue(server.bayeux().getRefusals().get(Limit.RESENDS) > 0);
        othersCarryOn();
    }

    @ParameterizedTest
    @MethodSource("mounts")
    void malformedOversizedAndDeepInputIsAnsweredNeverA500(Container mount, Probe.Kind kind) throws Exception {
        start(mount, ServerOptions.builder().maxMessagesPerBatch(50).build());
        List<String> nasty = new ArrayList<>(List.of("", "[", "]", "{}", "[1,2,3]", "null", "\"text\"", "[[[[]]]]",
                "[{\"channel\":null}]", "[{\"channel\":42}]", "[{\"channel\":\"/meta/connect\",\"clientId\":123}]",
                "[{\"channel\":\"/meta/handshake\",\"ext\":\"not an object\"}]", "[{\"channel\":\"\\u0000\"}]",
                "[{\"channel\":\"/meta/subscribe\",\"subscription\":[null,{},[]]}]", "[{\"channel\":\"/a/**\","
                        + "\"data\":1}]", "[{\"channel\":\"/meta/unknown\"}]", "[{\"channel\":\"/a\",\"data\":"
                        + "9".repeat(3_000) + "}]", "\uFFFF\uD800", "[{\"channel\":\"/x\"}" + ",{}".repeat(60) + "]"));
        nasty.add("[".repeat(100) + "]".repeat(100));
        if (kind != Probe.Kind.CALLBACK_POLLING) {
            nasty.add("[".repeat(100_000));
        }
        for (String body : nasty) {
            Probe probe = probe(kind, browser());
            try {
                assertFine(probe.send(body));
            } catch (AssertionError x) {
                throw new AssertionError("for " + Probe.shorten(body) + ": " + x.getMessage(), x);
            }
        }
        othersCarryOn();
    }

    @ParameterizedTest
    @MethodSource("mounts")
    void anErrorThrownOnTheRequestPathEndsInAnErrorReply(Container mount, Probe.Kind kind) throws Exception {
        start(mount, ServerOptions.defaults());
        server.bayeux().addService("/service/crash", (from, request, answer) -> {
            throw new StackOverflowError("an application bug");
        });
        server.bayeux().addExtension(new Extension() {
            @Override
            public boolean incoming(ServerSession from, Message.Mutable message) {
                if ("/chat/cursed".equals(message.getChannel())) {
                    throw new AssertionError("another application bug");
                }
                return true;
            }
        });
        Hostile hostile = hostile(kind);
        assertRefused(hostile.send("/service/crash", "data", "1"), "500::service_failed");
        assertFine(hostile.send("/chat/cursed", "data", "1"));
        othersCarryOn();
    }

    @ParameterizedTest
    @MethodSource("mounts")
    void closingTheServerTellsAWaitingClientToHandshakeAgain(Container mount, Probe.Kind kind) throws Exception {
        start(mount, ServerOptions.defaults());
        AtomicInteger connects = new AtomicInteger();
        server.bayeux().addExtension(new Extension() {
            @Override
            public boolean incoming(ServerSession from, Message.Mutable message) {
                if ("/meta/connect".equals(message.getChannel()) && message.getAdvice() == null) {
                    connects.incrementAndGet();
                }
                return true;
            }
        });
        Hostile client = hostile(kind);
        client.send("/meta/connect", "connectionType", Json.write(kind.connectionType), "advice", "{\"timeout\":0}");
        CompletableFuture<Probe.Outcome> held = CompletableFuture.supplyAsync(() -> {
            try {
                return client.send("/meta/connect", "connectionType", Json.write(kind.connectionType));
            } catch (Exception x) {
                throw new IllegalStateException(x);
            }
        });
        Await.until(Duration.ofSeconds(5), connects::get, n -> n > 0, "the held connect reached the engine");
        server.bayeux().close();
        Probe.Outcome answer = held.get(Probe.ANSWER_SECONDS + 2, TimeUnit.SECONDS);
        Map<String, Object> reply = answer.first();
        assertEquals("/meta/connect", reply.get("channel"));
        assertNotEquals(true, reply.get("successful"), reply.toString());
        assertEquals("handshake", ((Map<?, ?>) reply.get("advice")).get("reconnect"), reply.toString());
        assertRefused(probe(kind, browser()).send(handshake(kind)), "503::server_closing");
    }
}
