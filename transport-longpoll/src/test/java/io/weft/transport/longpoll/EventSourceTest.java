package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.ext.AcknowledgedMessagesExtension;
import io.weft.server.testing.Await;
import io.weft.server.testing.Inbox;
import io.weft.transport.longpoll.PollingServer.Mount;
import io.weft.transport.longpoll.testing.Reply;
import io.weft.transport.longpoll.testing.SseStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@code eventsource} stream on both mounts (the Jetty handler, the Servlet in Jetty's servlet context), and its
 * bounds: what the stream carries and what its POSTs answer, Faye's form of its URL, heartbeats, one stream per
 * session, streams no session answers, the session's end, {@code Last-Event-ID} under the ack extension, and a client
 * that never reads its stream. TomcatTest runs the Servlet's stream in Tomcat.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EventSourceTest {
    @RegisterExtension
    static final SharedHttpClient HTTP = new SharedHttpClient();
    private PollingServer server;

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private StreamPage page() {
        return new StreamPage(HTTP.client(), server.uri());
    }

    private void publish(String channel, Object data) {
        server.bayeux().createChannelIfAbsent(channel).publish(null, data);
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void streamCarriesConnectRepliesAndDeliveriesWhileItsPostsAnswerWithoutThem(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        try (StreamPage page = page().handshake(null).open(null)) {
            assertEquals(200, page.stream.status());
            assertTrue(page.stream.contentType().startsWith("text/event-stream"), page.stream.contentType());

            Reply first = page.connect("advice", Map.of("timeout", 0));
            assertEquals("[]", first.body(), "the connect's reply goes on the stream, not in the POST's answer");
            Map<String, Object> reply = page.take("/meta/connect", "the first connect's reply, on the stream");
            assertEquals(true, reply.get("successful"), reply.toString());
            assertEquals(20_000, ((Map<?, ?>) reply.get("advice")).get("timeout"), reply.toString());
            Reply subscribed = page.post(page.message("/meta/subscribe", "subscription", "/news"));
            assertEquals(true, subscribed.message().get("successful"), "uplink replies come in the POST's answer");

            assertEquals("[]", page.connect().body());
            Await.until(Duration.ofSeconds(5), () -> server.bayeux().getStats().heldConnects(), n -> n == 1,
                    "the connect is held on the stream");
            publish("/news", "pushed");
            Map<String, Object> delivery = page.take("/news", "the delivery, pushed on the stream");
            assertEquals("pushed", delivery.get("data"));
            assertEquals(1, server.bayeux().getStats().heldConnects(), "a push does not answer the held connect");
            assertEquals("eventsource", server.bayeux().getSession(page.clientId).getConnectionType());
        }
    }

    /** Faye's {@code EventSource} asks for {@code <endpoint>/<clientId>}, and posts its uplink to the endpoint. */
    @ParameterizedTest
    @EnumSource(Mount.class)
    void fayesFormOfTheStreamUrlOpensTheSameStream(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        try (StreamPage page = page().handshake(null).openAsFaye()) {
            assertEquals(200, page.stream.status());
            assertTrue(page.stream.contentType().startsWith("text/event-stream"), page.stream.contentType());
            assertEquals("[]", page.connect("advice", Map.of("timeout", 0)).body());
            assertEquals(true, page.take("/meta/connect", "the connect's reply, on the stream").get("successful"));
            page.post(page.message("/meta/subscribe", "subscription", "/news"));
            page.connect();
            Await.until(Duration.ofSeconds(5), () -> server.bayeux().getStats().heldConnects(), n -> n == 1,
                    "the connect is held on the stream");
            publish("/news", "to faye");
            assertEquals("to faye", page.take("/news", "the delivery, pushed on the stream").get("data"));
        }
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void fayesFormForNoSessionGetsA402AndAPathThatIsNoClientIdA400(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        try (StreamPage page = page()) {
            page.clientId = "noSuchSession";
            page.openAsFaye();
            Map<String, Object> reply = page.take("/meta/connect", "the 402");
            assertEquals("402::session_unknown", reply.get("error"), reply.toString());
            page.stream.ended().get(5, TimeUnit.SECONDS);

            for (String path : List.of("/a/b", "/a%20b", "/")) {
                Reply refused = page.browser.send(page.browser.prepare(HTTP.client()
                        .newRequest(URI.create(server.uri() + path)).method("GET")));
                assertEquals(400, refused.status(), path + ": " + refused.body());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void heartbeatCommentsKeepAnIdleStreamWritten(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.builder().eventSourceHeartbeat(200).build(), 1000);
        try (StreamPage page = page().handshake(null).open(null)) {
            page.connect("advice", Map.of("timeout", 0));
            page.take("/meta/connect", "the first reply");
            // Idle past the connector's 1 s idle timeout several times over: heartbeats every 200 ms, and the stream
            // is not ended as idle.
            Await.until(Duration.ofSeconds(10), page.stream::comments, n -> n >= 15, "heartbeats for 3 s");
            assertFalse(page.stream.isEnded(), "the stream lives on");
        }
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void streamNoSessionAnswersGetsA402ConnectReplyAndEnds(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        try (StreamPage page = page()) {
            page.clientId = "no-such-session";
            page.open(null);
            Map<String, Object> reply = page.take("/meta/connect", "the 402");
            assertEquals("402::session_unknown", reply.get("error"), reply.toString());
            assertEquals("handshake", ((Map<?, ?>) reply.get("advice")).get("reconnect"), reply.toString());
            page.stream.ended().get(5, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void streamFromAnotherBrowserIsRefusedAndTheOwnersStreamGoesOn(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        try (StreamPage owner = page().handshake(null).open(null); StreamPage thief = page()) {
            owner.post(owner.message("/meta/subscribe", "subscription", "/private"));
            owner.connect("advice", Map.of("timeout", 0));
            owner.take("/meta/connect", "the owner's first reply");

            thief.browser.cookie("forged");
            thief.clientId = owner.clientId;
            thief.open(null);
            Map<String, Object> refused = thief.take("/meta/connect", "the thief's 402");
            assertEquals("402::session_unknown", refused.get("error"), refused.toString());
            thief.stream.ended().get(5, TimeUnit.SECONDS);

            publish("/private", "for the owner");
            owner.take("/private", "the owner's delivery, on the stream the thief did not replace");
            assertNull(thief.inbox.poll(Inbox.channel("/private"), 0));
        }
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void aNewerStreamReplacesTheOlderWhichIsClosedWithItsReason(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        try (StreamPage page = page().handshake(null).open(null)) {
            page.post(page.message("/meta/subscribe", "subscription", "/news"));
            SseStream older = page.stream;
            page.open(null);

            older.ended().get(5, TimeUnit.SECONDS);
            assertTrue(older.lastComment().startsWith("replaced by a newer stream"), older.lastComment());
            page.connect("advice", Map.of("timeout", 0));
            page.take("/meta/connect", "the reply, on the newer stream");
            publish("/news", "on the newer");
            page.take("/news", "the delivery");
        }
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void theSessionsEndEndsItsStream(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        try (StreamPage page = page().handshake(null).open(null)) {
            page.connect("advice", Map.of("timeout", 0));
            page.take("/meta/connect", "the first reply");
            page.connect();
            Await.until(Duration.ofSeconds(5), () -> server.bayeux().getStats().heldConnects(), n -> n == 1,
                    "the connect is held on the stream");

            assertEquals(true, page.post(page.message("/meta/disconnect")).message().get("successful"));
            Map<String, Object> last = page.take("/meta/connect", "the held connect's last reply");
            assertEquals("none", ((Map<?, ?>) last.get("advice")).get("reconnect"), last.toString());
            page.stream.ended().get(5, TimeUnit.SECONDS);
            assertEquals("the session has ended", page.stream.lastComment());
        }
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void lastEventIdAcknowledgesAndWhatCameAfterIsSentAgain(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        server.bayeux().addExtension(new AcknowledgedMessagesExtension());
        try (StreamPage page = page().handshake(Map.of("ack", true)).open(null)) {
            page.post(page.message("/meta/subscribe", "subscription", "/orders"));
            page.connect("advice", Map.of("timeout", 0), "ext", Map.of("ack", 0));
            page.take("/meta/connect", "the first reply");
            String before = page.stream.lastEventId();
            assertNotNull(before, "a connect reply under the ack extension is an event with an id");

            publish("/orders", "order 1");
            page.connect("ext", Map.of("ack", Long.parseLong(before)));
            assertEquals("order 1", page.take("/orders", "the order, with a connect reply").get("data"));
            page.take("/meta/connect", "its connect reply");
            assertTrue(Long.parseLong(page.stream.lastEventId()) > Long.parseLong(before));

            // The network lost that event: the browser reopens with the id before it, and connects without an ack.
            page.stream.close();
            page.open(before);
            page.connect("advice", Map.of("timeout", 0));
            assertEquals("order 1", page.take("/orders", "the order, sent again").get("data"));
        }
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void clientThatNeverReadsItsStreamHoldsABoundedQueueAndIsClosed(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.builder().maxQueue(50).build(), 1000);
        StreamPage page = page().handshake(null);
        String head = "GET " + server.uri().getRawPath() + "?clientId=" + page.clientId + " HTTP/1.1\r\n"
                + "Host: " + server.uri().getHost() + ":" + server.uri().getPort() + "\r\n"
                + "Accept: text/event-stream\r\nCookie: " + page.cookieHeader() + "\r\n\r\n";
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(4096);
            socket.connect(new InetSocketAddress(server.uri().getHost(), server.uri().getPort()), 5000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Await.until(Duration.ofSeconds(5), () -> server.waitingRequests(), n -> n == 1, "the stream is open");
            page.post(page.message("/meta/subscribe", "subscription", "/firehose"));
            page.connect("advice", Map.of("timeout", 0));
            String kilobytes = "x".repeat(16 * 1024);
            ServerSession session = server.bayeux().getSession(page.clientId);
            for (int i = 0; i < 2000 && server.bayeux().getSession(page.clientId) != null; i++) {
                publish("/firehose", kilobytes + i);
                assertTrue(session.getQueueSize() <= 50, "bounded by maxQueue: " + session.getQueueSize());
                assertTrue(session.getQueueSize() <= 512 * 1024 / (16 * 1024), "bounded by maxQueueBytes: "
                        + session.getQueueSize());
            }
            Await.until(Duration.ofSeconds(10), () -> server.waitingRequests(), n -> n == 0,
                    "the stalled stream's write timed out and the stream was closed");
            assertTrue(session.getDroppedMessages() > 0, "what did not fit was dropped and counted");
            // 50 messages of 16 KB are past maxQueueBytes (512 KiB): the bytes bind first.
            assertTrue(server.bayeux().getRefusals().getOrDefault(Limit.QUEUE_BYTES, 0L) > 0);
        }
    }
}
