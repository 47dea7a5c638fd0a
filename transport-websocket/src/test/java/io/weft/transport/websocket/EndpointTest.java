package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Engine;
import io.weft.server.spi.RequestSnapshot;
import io.weft.transport.common.BayeuxSocket;
import io.weft.transport.common.WebSockets;
import jakarta.websocket.CloseReason.CloseCodes;
import jakarta.websocket.CloseReason;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Jakarta endpoint and its {@link BayeuxSocket} alone, on a {@link FakeSession}: how it configures its socket, batches handed to the engine as they
 * arrive, at most {@code maxPendingFrames} of them waiting for their replies to be written, one send at a time, and
 * what it tells the engine.
 */
class EndpointTest {
    private static final int MAX_PENDING = 4;
    private BayeuxServer bayeux;
    private FakeSession socket;
    private WebSocketEndpoint endpoint;

    @BeforeEach
    void open() {
        bayeux = BayeuxServer.create(ServerOptions.builder().maxPendingFrames(MAX_PENDING).maxMessageSize(100_000)
                .build());
        socket = new FakeSession();
        RequestSnapshot upgrade = RequestSnapshot.builder()
                .remoteAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 4242)).build();
        WebSockets transport = WebSockets.of(bayeux);
        endpoint = new WebSocketEndpoint(transport.accept(List.of(), upgrade), transport);
        endpoint.onOpen(socket.session(), socket.config());
    }

    @AfterEach
    void close() {
        bayeux.close();
    }

    private static String unknownClientPublish(int id) {
        return "[{\"channel\":\"/chat\",\"id\":\"" + id + "\",\"clientId\":\"nobody\",\"data\":1}]";
    }

    @Test
    void endpointKnowsItsPeersAddressFromTheUpgrade() {
        assertEquals(InetAddress.getLoopbackAddress(), endpoint.socket().remoteAddress());
        assertTrue(endpoint.toString().endsWith(":4242]]"), endpoint.toString());
        assertNull(WebSockets.of(bayeux).accept(List.of(), null).remoteAddress(),
                "none without an upgrade request");
    }

    @Test
    void openingConfiguresTheSocketFromTheOptions() {
        ServerOptions options = Engine.of(bayeux).options();
        assertEquals(100_000, socket.setting("setMaxTextMessageBufferSize"));
        assertEquals(100_000, socket.setting("setMaxBinaryMessageBufferSize"));
        assertEquals(options.timeout() + options.interval() + options.maxInterval(),
                socket.setting("setMaxIdleTimeout"));
    }

    @Test
    void eachTextMessageIsABatchAnsweredByOneTextMessage() {
        for (int i = 0; i < 10_000; i++) {
            socket.text(unknownClientPublish(i));
        }
        assertEquals(10_000, socket.texts().size());
        assertTrue(socket.texts().get(0).contains("402::session_unknown"), socket.texts().get(0));
        assertEquals(-1, socket.closeCode(), "a client whose replies are written never comes near the bound");
    }

    @Test
    void onlyOneSendAtATime() {
        socket.holdWrites();
        socket.text(unknownClientPublish(1));
        socket.text(unknownClientPublish(2));
        assertEquals(1, socket.heldWrites(), "the second reply waits for the first to be written");
        socket.completeWrite();
        assertEquals(1, socket.heldWrites());
        socket.completeWrite();
        assertEquals(2, socket.texts().size());
    }

    @Test
    void moreBatchesWaitingForTheirRepliesThanMaxPendingFramesCloseWith1008CountedOnce() {
        socket.holdWrites();
        for (int i = 0; i < MAX_PENDING; i++) {
            socket.text(unknownClientPublish(i));
        }
        assertEquals(-1, socket.closeCode(), "within the bound");

        for (int i = 0; i < 10; i++) {
            socket.text(unknownClientPublish(MAX_PENDING + i));
        }

        assertEquals(CloseCodes.VIOLATED_POLICY.getCode(), socket.closeCode());
        assertTrue(socket.closeReason().contains("maxPendingFrames"), socket.closeReason());
        assertEquals(1L, bayeux.getRefusals().get(Limit.PENDING_FRAMES));
    }

    @Test
    void messagesAfterTheServerClosedAreDropped() {
        socket.text("not JSON");

        assertEquals(CloseCodes.CANNOT_ACCEPT.getCode(), socket.closeCode());
        socket.text(unknownClientPublish(1));
        assertEquals(List.of(), socket.texts(), "not handled");
    }

    @Test
    void binaryMessagesCloseWith1003() {
        socket.binary(new byte[] {1, 2, 3});

        assertEquals(CloseCodes.CANNOT_ACCEPT.getCode(), socket.closeCode());
        assertTrue(socket.closeReason().contains("JSON text"), socket.closeReason());
    }

    @Test
    void aCloseForAMessageTooLargeIsCountedAsTheMessageSizeBound() {
        endpoint.onClose(socket.session(), new CloseReason(CloseCodes.TOO_BIG, "Text message too large"));

        assertEquals(1L, bayeux.getRefusals().get(Limit.MESSAGE_SIZE));
    }
}
