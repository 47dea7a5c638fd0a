package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The endpoint alone, on a {@link FakeSession}: one demand outstanding at a time, the next frame demanded only once the
 * previous batch's replies are written, pings answered within {@code maxPendingFrames}, and what it tells the engine.
 */
class EndpointTest {
    private static final int MAX_PENDING = 4;
    private BayeuxServer bayeux;
    private FakeSession jetty;
    private WebSocketEndpoint endpoint;

    @BeforeEach
    void open() {
        bayeux = BayeuxServer.create(ServerOptions.builder().maxPendingFrames(MAX_PENDING).build());
        jetty = FakeSession.from(new InetSocketAddress("192.0.2.7", 4242));
        endpoint = WebSocketTransport.of(bayeux).accept(List.of(), false, header -> { }, null);
        endpoint.onWebSocketOpen(jetty.session());
    }

    @AfterEach
    void close() {
        bayeux.close();
    }

    private void text(String frame) {
        jetty.deliver();
        endpoint.onWebSocketText(frame);
    }

    private void ping() {
        jetty.deliver();
        endpoint.onWebSocketPing(ByteBuffer.wrap(new byte[] {1, 2, 3}));
    }

    private static String unknownClientPublish(int id) {
        return "[{\"channel\":\"/chat\",\"id\":\"" + id + "\",\"clientId\":\"nobody\",\"data\":1}]";
    }

    @Test
    void endpointKnowsItsPeersAddress() throws Exception {
        assertEquals(InetAddress.getByName("192.0.2.7"), endpoint.remoteAddress());
        assertEquals("WebSocketEndpoint[/192.0.2.7:4242]", endpoint.toString());
        assertNull(WebSocketTransport.of(bayeux).accept(List.of(), false, header -> { }, null).remoteAddress(),
                "none before the socket opens");
    }

    @Test
    void openingDemandsTheFirstFrame() {
        assertTrue(jetty.demanded());
        assertEquals(1, jetty.demands());
    }

    @Test
    void nextFrameIsDemandedOnlyOnceTheRepliesAreWritten() {
        jetty.holdWrites();

        text(unknownClientPublish(1));

        assertEquals(1, jetty.heldWrites(), "the reply is being written");
        assertFalse(jetty.demanded(), "nothing more is read meanwhile");
        jetty.completeWrite();
        assertTrue(jetty.demanded());
        assertEquals(2, jetty.demands());
    }

    @Test
    void repliesWrittenAtOnceLetTheNextFrameBeDemandedAsEachFrameIsHandled() {
        for (int i = 0; i < 10_000; i++) {
            text(unknownClientPublish(i));
            assertTrue(jetty.demanded(), "frame " + i);
        }
        assertEquals(10_001, jetty.demands());
        assertEquals(10_000, jetty.texts().size());
    }

    @Test
    void pingIsAnsweredAndTheNextFrameDemandedWhileThePongWaits() {
        jetty.holdWrites();

        ping();

        assertEquals(1, jetty.pongs());
        assertEquals(1, jetty.heldWrites());
        assertTrue(jetty.demanded());
    }

    @Test
    void moreFramesWaitingThanMaxPendingFramesCloseWith1008CountedOnce() {
        jetty.holdWrites();
        for (int i = 0; i < MAX_PENDING; i++) {
            ping();
        }
        assertEquals(-1, jetty.closeCode(), "within the bound");

        ping();

        assertEquals(MAX_PENDING, jetty.pongs());
        assertEquals(StatusCode.POLICY_VIOLATION, jetty.closeCode());
        assertTrue(jetty.closeReason().contains("maxPendingFrames"), jetty.closeReason());
        assertFalse(jetty.demanded(), "nothing more is read until the close frame is written");
        assertEquals(1L, bayeux.getRefusals().get(Limit.PENDING_FRAMES));
        jetty.completeClose();
        assertTrue(jetty.demanded(), "the client's close reply is read");
        ping();
        assertEquals(MAX_PENDING, jetty.pongs(), "a ping after the close is not answered");
        assertEquals(1L, bayeux.getRefusals().get(Limit.PENDING_FRAMES));
    }

    @Test
    void pongsAndRepliesShareTheBound() {
        jetty.holdWrites();
        for (int i = 0; i < MAX_PENDING - 1; i++) {
            ping();
        }

        text(unknownClientPublish(1));
        assertEquals(-1, jetty.closeCode(), "the reply took the last place");
        jetty.completeWrite(); // a pong written: one place free, but the reply is still waiting
        assertFalse(jetty.demanded());
        while (jetty.heldWrites() > 0) {
            jetty.completeWrite();
        }
        assertTrue(jetty.demanded(), "the reply is written: the next frame is read");
    }

    @Test
    void framesAfterTheServerClosedAreDroppedAndReadingResumesForTheCloseReply() {
        jetty.holdWrites();

        text("not JSON");

        assertEquals(StatusCode.BAD_DATA, jetty.closeCode());
        assertFalse(jetty.demanded());
        jetty.completeClose();
        assertTrue(jetty.demanded());
        text(unknownClientPublish(1));
        assertEquals(List.of(), jetty.texts(), "not handled");
        assertTrue(jetty.demanded());
    }
}
