package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.SocketClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A persistent connection whose client does not read but keeps sending: every {@code /meta/connect} replacing the
 * held one leaves that one's reply waiting to be written. Past {@code maxPendingFrames} waiting answers the engine
 * gives up on the connection, counts it, and has the transport close it with a reason; a client that reads is never
 * near the bound.
 */
class PendingAnswersTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.builder().maxPendingFrames(4).build(),
            scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void aClientThatSendsConnectsWithoutReadingIsGivenUpOn() {
        SocketClient client = new SocketClient(InMemoryTransport.websocket(server), "b");
        client.handshake();
        client.connectNow();
        client.next();
        client.socket().pause();
        for (int i = 0; i < 20; i++) {
            client.connect();
        }
        assertEquals(1, server.getRefusals().get(Limit.PENDING_FRAMES));
        String reason = client.socket().closeReason();
        assertNotNull(reason, "the transport was told to close the socket");
        assertTrue(reason.contains("maxPendingFrames"), reason);
    }

    @Test
    void aClientThatReadsNeverComesNearTheBound() {
        SocketClient client = new SocketClient(InMemoryTransport.websocket(server), "b");
        client.handshake();
        client.connectNow();
        client.next();
        for (int i = 0; i < 50; i++) {
            client.connect();
            client.publish("/a", String.valueOf(i));
        }
        assertEquals(0, server.getRefusals().get(Limit.PENDING_FRAMES));
        assertNull(client.socket().closeReason());
    }
}
