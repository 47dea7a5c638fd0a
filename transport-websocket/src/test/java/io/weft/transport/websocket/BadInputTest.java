package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Inbox;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.common.BayeuxSocket;
import io.weft.transport.netty.testing.NettyLeaks;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Bad input on a socket: the socket is closed with a reason (or the message gets an error reply), the operator gets
 * one quiet line, and every other session carries on.
 */
@Timeout(30)
@ParameterizedClass
@EnumSource(value = Container.class, names = {"JETTY", "NETTY"})
class BadInputTest {
    private static final int LIMIT = 4096;
    @RegisterExtension
    static final Clients clients = new Clients();
    @RegisterExtension
    static final NettyLeaks leaks = new NettyLeaks();
    /** The mount under test: embedded Jetty's core WebSocket API, or Netty's codec. */
    @Parameter
    Container mount;
    private BayeuxHost server;
    private ScriptedClient bystander;
    private ScriptedClient listener;

    @BeforeEach
    void start() throws Exception {
        server = mount.start(ServerOptions.builder().maxMessageSize(LIMIT).build());
        bystander = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()));
        bystander.handshake();
        bystander.connect();
        listener = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()));
        listener.handshake();
        listener.connect();
        listener.subscribe("/chat/room7");
    }

    @AfterEach
    void stop() throws Exception {
        bystander.close();
        listener.close();
        server.close();
    }

    /** Another session's conversation, after the bad input, goes on as if nothing happened. */
    private void othersCarryOn(String text) {
        assertEquals(true, bystander.publish("/chat/room7", text).get("successful"));
        listener.awaitDelivery("/chat/room7", text);
    }

    private static String batchOfSize(int bytes) {
        String head = "[{\"channel\":\"/chat/room7\",\"data\":\"";
        String tail = "\"}]";
        return head + "x".repeat(bytes - head.length() - tail.length()) + tail;
    }

    @Test
    void aBatchInFragmentsIsOneBatch() throws Exception {
        try (PlainWebSocket peer = PlainWebSocket.connect(server.wsUri(), 0)) {
            byte[] batch = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]"
                    .getBytes(StandardCharsets.UTF_8);
            int third = batch.length / 3;
            peer.send(PlainWebSocket.TEXT, Arrays.copyOfRange(batch, 0, third), false);
            peer.send(PlainWebSocket.CONTINUATION, Arrays.copyOfRange(batch, third, 2 * third), false);
            peer.send(PlainWebSocket.CONTINUATION, Arrays.copyOfRange(batch, 2 * third, batch.length), true);
            PlainWebSocket.Frame reply = peer.readFrame();
            assertEquals(PlainWebSocket.TEXT, reply.opcode());
            assertEquals(true, Json.array(reply.text()).get(0).get("successful"), reply.text());
        }
    }

    @Test
    void fragmentsAddingUpToMoreThanTheLimitCloseWith1009CountedOnce() throws Exception {
        try (PlainWebSocket peer = PlainWebSocket.connect(server.wsUri(), 0)) {
            byte[] fragment = "x".repeat(LIMIT / 2 + 1).getBytes(StandardCharsets.UTF_8);
            peer.send(PlainWebSocket.TEXT, fragment, false);
            peer.send(PlainWebSocket.CONTINUATION, fragment, false);
            for (int i = 0; i < 5; i++) {
                try {
                    peer.send(PlainWebSocket.CONTINUATION, fragment, false); // still sending after the close
                } catch (IOException closed) {
                    break;
                }
            }
            PlainWebSocket.Frame close = peer.readFrame();
            assertEquals(PlainWebSocket.CLOSE, close.opcode());
            assertEquals(StatusCode.MESSAGE_TOO_LARGE, close.closeCode(), close.closeReason());
        }
        othersCarryOn("after fragments over the limit");
        assertEquals(1L, server.bayeux().getRefusals().get(Limit.MESSAGE_SIZE));
    }

    @Test
    void frameOverTheLimitClosesWith1009AndOneQuietLogLine() throws Exception {
        try (LogCapture log = new LogCapture();
                ScriptedClient offender = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()))) {
            offender.handshake();
            RawSocket socket = (RawSocket) offender.wire();

            socket.send(batchOfSize(LIMIT + 1));

            RawSocket.Closed closed = socket.awaitClose(5);
            assertEquals(StatusCode.MESSAGE_TOO_LARGE, closed.code(), closed.toString());
            othersCarryOn("after an oversized frame");
            List<String> lines = log.await(BayeuxSocket.class, 1, 5);
            assertEquals(1, lines.size(), lines.toString());
            assertTrue(lines.get(0).contains("1009"), lines.get(0));
            assertEquals(List.of(), log.loud());
            assertNotNull(server.bayeux().getSession(offender.clientId()), "a closed socket does not end its session");
            assertEquals(1L, server.bayeux().getRefusals().get(Limit.MESSAGE_SIZE));
        }
    }

    @Test
    void batchOverMaxMessagesPerBatchClosesWith1009AndIsCountedOnce() throws Exception {
        try (BayeuxHost small = mount.start(ServerOptions.builder().maxMessagesPerBatch(3).build());
                RawSocket socket = RawSocket.connect(clients.webSocket(), small.wsUri())) {
            socket.send("[{\"channel\":\"/a\"},{\"channel\":\"/a\"},{\"channel\":\"/a\"},{\"channel\":\"/a\"}]");

            RawSocket.Closed closed = socket.awaitClose(5);
            assertEquals(StatusCode.MESSAGE_TOO_LARGE, closed.code(), closed.toString());
            assertTrue(closed.reason().contains("maxMessagesPerBatch"), closed.reason());
            assertEquals(1L, small.bayeux().getRefusals().get(Limit.MESSAGES_PER_BATCH));
        }
    }

    @Test
    void manyPeersSendingBadFramesWriteOneInfoLine() throws Exception {
        try (LogCapture log = new LogCapture()) {
            for (int i = 0; i < 20; i++) {
                try (RawSocket socket = RawSocket.connect(clients.webSocket(), server.wsUri())) {
                    socket.send("not JSON " + i);
                    assertEquals(StatusCode.BAD_DATA, socket.awaitClose(5).code());
                }
            }
            othersCarryOn("after twenty bad frames");
            assertEquals(1, log.from(BayeuxSocket.class).size(), log.from(BayeuxSocket.class).toString());
        }
    }

    @Test
    void frameAtTheLimitIsAccepted() throws Exception {
        assertEquals(true, bystander.call(Map.of("channel", "/chat/room7", "id", "big", "clientId",
                bystander.clientId(), "data", "x".repeat(LIMIT - 200))).get("successful"));
    }

    @Test
    void limitAboveJettysDefaultsIsHonoured() throws Exception {
        int limit = 256 * 1024;
        try (BayeuxHost big = mount.start(ServerOptions.builder().maxMessageSize(limit).build());
                ScriptedClient client = new ScriptedClient(RawSocket.connect(clients.webSocket(), big.wsUri()))) {
            client.handshake();
            client.subscribe("/big");
            String data = "y".repeat(200 * 1024);
            assertEquals(true, client.publish("/big", data).get("successful"));
            client.awaitDelivery("/big", data);
        }
    }

    @Test
    void textThatIsNotJsonClosesWith1003AndAReason() throws Exception {
        try (LogCapture log = new LogCapture();
                RawSocket socket = RawSocket.connect(clients.webSocket(), server.wsUri())) {
            socket.send("hello, is this Bayeux?");

            RawSocket.Closed closed = socket.awaitClose(5);
            assertEquals(StatusCode.BAD_DATA, closed.code(), closed.toString());
            assertFalse(closed.reason() == null || closed.reason().isBlank(), "the close carries a reason");
            othersCarryOn("after non-JSON text");
            List<String> lines = log.await(BayeuxSocket.class, 1, 5);
            assertEquals(1, lines.size(), lines.toString());
            assertEquals(List.of(), log.loud());
        }
    }

    @Test
    void jsonThatIsNotABatchClosesWith1003() throws Exception {
        try (RawSocket socket = RawSocket.connect(clients.webSocket(), server.wsUri())) {
            socket.send("\"just a string\"");
            assertEquals(StatusCode.BAD_DATA, socket.awaitClose(5).code());
            othersCarryOn("after a JSON string");
        }
    }

    @Test
    void binaryFrameClosesWith1003() throws Exception {
        try (LogCapture log = new LogCapture();
                RawSocket socket = RawSocket.connect(clients.webSocket(), server.wsUri())) {
            socket.session().sendBinary(ByteBuffer.wrap(new byte[] {1, 2, 3}), Callback.NOOP);

            assertEquals(StatusCode.BAD_DATA, socket.awaitClose(5).code());
            othersCarryOn("after a binary frame");
            assertEquals(List.of(), log.loud());
        }
    }

    @Test
    void malformedMessageInAWellFormedBatchGetsAnErrorReplyAndTheSocketStaysOpen() throws Exception {
        try (LogCapture log = new LogCapture();
                ScriptedClient client = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()))) {
            client.handshake();
            client.wire().send("[{\"channel\":\"/chat/room7\",\"id\":\"bad\",\"clientId\":42}]");

            Map<String, Object> reply = client.inbox().take(Inbox.reply("/chat/room7", "bad"), 5, "error reply");
            assertEquals(false, reply.get("successful"));
            assertTrue(String.valueOf(reply.get("error")).startsWith("400:"), reply.toString());
            assertTrue(((RawSocket) client.wire()).isOpen());
            assertEquals(true, client.publish("/chat/room7", "still here").get("successful"));
            assertEquals(List.of(), log.loud());
        }
    }
}
