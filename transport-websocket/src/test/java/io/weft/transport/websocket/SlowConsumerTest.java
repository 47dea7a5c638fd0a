package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.testing.Await;
import io.weft.server.testing.ScriptedClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A client that stops reading its socket fills only its own queue; publishers and other subscribers go on. */
@Timeout(60)
class SlowConsumerTest {
    private static final int DATA_SIZE = 32 * 1024;
    /** Far more than loopback socket buffers hold (send 4 MB + receive up to 32 MB here): the stall is certain. */
    private static final int MAX_MESSAGES = 4000;
    @RegisterExtension
    static final Clients clients = new Clients();

    @Test
    void clientThatStopsReadingDoesNotHoldUpPublishersOrOtherSubscribers() throws Exception {
        ServerOptions options = ServerOptions.builder().maxMessageSize(DATA_SIZE * 2).maxQueue(MAX_MESSAGES)
                .maxQueueBytes(MAX_MESSAGES * DATA_SIZE * 2).build();
        try (EmbeddedServer server = EmbeddedServer.start(options);
                ScriptedClient slow = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()));
                ScriptedClient fast = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()));
                ScriptedClient publisher = new ScriptedClient(
                        RawSocket.connect(clients.webSocket(), server.wsUri()))) {
            for (ScriptedClient client : new ScriptedClient[] {slow, fast, publisher}) {
                client.handshake();
                client.connect();
            }
            slow.subscribe("/feed");
            fast.subscribe("/feed");
            AtomicInteger fastReceived = count(fast, "/feed");
            AtomicInteger slowReceived = count(slow, "/feed");
            ((RawSocket) slow.wire()).pauseReading();
            ServerSession slowSession = server.bayeux().getSession(slow.clientId());

            // Publish until the stalled client's messages are piling up in its queue on the server.
            String data = "d".repeat(DATA_SIZE);
            int published = 0;
            while (slowSession.getQueueSize() < 100) {
                assertTrue(published < MAX_MESSAGES, "the slow client's writes never stalled");
                Map<String, Object> reply = publisher.publish("/feed", data);
                assertEquals(true, reply.get("successful"), "publish " + published + " answered");
                published++;
            }

            // Everything reached the other subscriber while the slow one was still not reading.
            int expected = published;
            Await.until(Duration.ofSeconds(20), fastReceived::get, n -> n == expected, "fast subscriber got all " + expected);
            assertTrue(slowSession.getQueueSize() >= 100, "the slow client was still stalled");

            // Once it reads again, it gets everything, nothing dropped.
            assertTrue(slowReceived.get() < expected);
            ((RawSocket) slow.wire()).resumeReading();
            Await.until(Duration.ofSeconds(20), slowReceived::get, n -> n == expected, "slow subscriber caught up");
            assertEquals(0, slowSession.getDroppedMessages());
        }
    }

    private static AtomicInteger count(ScriptedClient client, String channel) {
        AtomicInteger count = new AtomicInteger();
        client.wire().onReceive(batch -> count.addAndGet(
                (int) batch.stream().filter(m -> channel.equals(m.get("channel"))).count()));
        return count;
    }
}
