package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import io.weft.server.api.Extension;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.testing.Await;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.websocket.PlainWebSocket.Frame;
import jakarta.websocket.CloseReason.CloseCodes;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A peer that writes without reading. On embedded Jetty the server reads its next frame only once the previous frame's
 * replies are written, so the peer is stalled after a bounded number of frames (what the socket buffers hold) while
 * other clients go on, and served again once it reads. On the Jakarta mount (Tomcat here), which cannot stop reading,
 * past {@code maxPendingFrames} batches waiting for their replies it is closed with 1008 and counted. Its pings are
 * answered once the previous pong is written: it stalls, and goes on once it reads. A peer that reads is served frame
 * after frame by loops, not by a recursion per frame.
 */
@Timeout(60)
class BackpressureTest {
    /** Socket buffers on both sides of the flooding peer's connection, both ways, small so that stalls come early. */
    private static final int SMALL_BUFFER = 8 * 1024;
    private static final int FRAMES = 10_000;
    /**
     * Several times what the buffers hold (about 500 pings of 125 bytes with 8 KB buffers, which the kernel doubles),
     * and no more: once the peer reads, each ping is read only after the previous pong is written, a round trip with
     * thread hand-offs on both sides. 20,000 of them took 18 to 54 s with two busy loops on this machine's 2 cores, and
     * once passed the test's 60 s timeout.
     */
    private static final int PINGS = 4_000;
    @RegisterExtension
    static final Clients clients = new Clients();

    private static void smallBuffers(ServerConnector connector) {
        connector.setAcceptedSendBufferSize(SMALL_BUFFER);
        connector.setAcceptedReceiveBufferSize(SMALL_BUFFER);
    }

    @Test
    void peerThatSendsWithoutReadingIsReadNoFurtherUntilItReads() throws Exception {
        Handled flood = new Handled("/flood");
        try (EmbeddedServer server = EmbeddedServer.start(ServerOptions.defaults(), BackpressureTest::smallBuffers);
                PlainWebSocket peer = PlainWebSocket.connect(server.wsUri(), SMALL_BUFFER)) {
            server.bayeux().addExtension(flood);

            // Each frame gets a reply (402::session_unknown: the peer never handshakes); the peer reads none of them.
            Thread sender = peer.sendInBackground(FRAMES, i -> "[{\"channel\":\"/flood\",\"id\":\"" + i + "\"}]");

            int stalledAt = Await.steady(Duration.ofSeconds(20), Duration.ofSeconds(1), flood::count,
                    "the flood's frames");
            assertTrue(stalledAt < FRAMES / 10,
                    stalledAt + " of " + FRAMES + " frames handled while the peer read nothing");
            try (ScriptedClient other = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()))) {
                other.handshake();
                other.connect();
                other.subscribe("/chat");
                for (int i = 0; i < 10; i++) {
                    assertEquals(true, other.publish("/chat", "hello " + i).get("successful"));
                    other.awaitDelivery("/chat", "hello " + i);
                }
            }
            int afterOthers = flood.count();
            assertTrue(afterOthers < FRAMES / 10, afterOthers + " of the peer's frames handled after the others'");

            int answered = 0;
            while (answered < FRAMES) {
                PlainWebSocket.Frame frame = peer.readFrame();
                assertEquals(PlainWebSocket.TEXT, frame.opcode(), frame.text());
                for (Map<String, Object> reply : Json.array(frame.text())) {
                    assertEquals(String.valueOf(answered), reply.get("id"), "replies in the order sent");
                    answered++;
                }
            }
            sender.join(10_000);
            assertFalse(sender.isAlive(), "the peer could write all its frames once it read");
            assertEquals(FRAMES, flood.count());
        }
    }

    @Test
    void onTheJakartaMountAPeerThatSendsWithoutReadingIsClosedWith1008() throws Exception {
        // The Jakarta API cannot stop reading a socket: there the batches waiting for their replies are bounded.
        Handled flood = new Handled("/flood");
        try (TomcatServer server = TomcatServer.start(context -> { }, connector -> {
                    connector.setProperty("socket.txBufSize", String.valueOf(SMALL_BUFFER));
                    connector.setProperty("socket.rxBufSize", String.valueOf(SMALL_BUFFER));
                });
                PlainWebSocket peer = PlainWebSocket.connect(server.wsUri(), SMALL_BUFFER);
                ScriptedClient other = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()))) {
            server.bayeux().addExtension(flood);
            other.handshake();
            other.connect();
            other.subscribe("/chat");

            // Each frame gets a reply (402::session_unknown: the peer never handshakes); the peer reads none of them.
            Thread sender = peer.sendInBackground(FRAMES, i -> "[{\"channel\":\"/flood\",\"id\":\"" + i + "\"}]");

            Await.until(Duration.ofSeconds(10), () -> server.bayeux().getRefusals().get(Limit.PENDING_FRAMES), n -> n == 1,
                    "the peer was refused");
            for (int i = 0; i < 10; i++) {
                assertEquals(true, other.publish("/chat", "hello " + i).get("successful"));
                other.awaitDelivery("/chat", "hello " + i);
            }
            int handled = flood.count();
            assertTrue(handled < FRAMES / 10, handled + " of " + FRAMES + " frames handled while the peer read nothing");
            Frame last = readUntilNotA(peer, PlainWebSocket.TEXT);
            if (last != null) {
                assertEquals(PlainWebSocket.CLOSE, last.opcode());
                assertEquals(CloseCodes.VIOLATED_POLICY.getCode(), last.closeCode(), last.closeReason());
                assertTrue(last.closeReason().contains("maxPendingFrames"), last.closeReason());
            }
            peer.close();
            sender.join(10_000);
            assertEquals(1, server.bayeux().getRefusals().get(Limit.PENDING_FRAMES));
        }
    }

    @Test
    void peerThatPingsWithoutReadingIsReadNoFurtherUntilItReads() throws Exception {
        try (EmbeddedServer server = EmbeddedServer.start(ServerOptions.defaults(), BackpressureTest::smallBuffers);
                PlainWebSocket peer = PlainWebSocket.connect(server.wsUri(), SMALL_BUFFER);
                ScriptedClient other = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()))) {
            other.handshake();

            // The container answers pings, and reads the next frame only once the pong is written.
            Thread sender = peer.pingInBackground(PINGS, 125);

            int stalledAt = Await.steady(Duration.ofSeconds(20), Duration.ofSeconds(1), peer::sent, "the pings sent");
            assertTrue(stalledAt < PINGS / 4, stalledAt + " of " + PINGS + " pings written while the peer read nothing");
            assertEquals(true, other.publish("/chat", "meanwhile").get("successful"));

            int pongs = 0;
            while (pongs < PINGS) {
                Frame frame = peer.readFrame();
                assertEquals(PlainWebSocket.PONG, frame.opcode());
                pongs++;
            }
            sender.join(10_000);
            assertFalse(sender.isAlive(), "the peer could write all its pings once it read");
            assertEquals(0, refusals(server, Limit.PENDING_FRAMES));
        }
    }

    /**
     * A peer that pings without reading holds no selector thread: its pong waits in the connection's flusher (writes
     * never block), and its next ping waits for the demand the pong's completion makes (reads run on the thread pool,
     * not on the selector: Jetty's WebSocketConnection keeps the default blocking invocation type). So with one
     * selector for every connection, another client is served meanwhile, and the server stops at once.
     */
    @Test
    void aPeerThatPingsWithoutReadingHoldsNoSelectorThread() throws Exception {
        EmbeddedServer server = EmbeddedServer.start(ServerOptions.defaults(), BackpressureTest::smallBuffers, 1);
        try (PlainWebSocket peer = PlainWebSocket.connect(server.wsUri(), SMALL_BUFFER)) {
            peer.pingInBackground(PINGS, 125);
            int stalledAt = Await.steady(Duration.ofSeconds(20), Duration.ofSeconds(1), peer::sent, "the pings sent");
            assertTrue(stalledAt < PINGS / 4, stalledAt + " pings written while the peer read nothing");
            try (ScriptedClient other = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()))) {
                other.handshake();
                other.connect();
                other.subscribe("/chat");
                for (int i = 0; i < 10; i++) {
                    assertEquals(true, other.publish("/chat", "on the same selector " + i).get("successful"));
                    other.awaitDelivery("/chat", "on the same selector " + i);
                }
            }
            assertEquals(stalledAt, peer.sent(), "the peer is still stalled");
            CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> {
                try {
                    server.close();
                } catch (Exception x) {
                    throw new IllegalStateException(x);
                }
            });
            stopped.get(10, TimeUnit.SECONDS);
        } finally {
            server.close();
        }
    }

    /** Reads frames while they are of type {@code opcode}; the first other one, or null if the connection was reset. */
    private static Frame readUntilNotA(PlainWebSocket peer, int opcode) {
        // A peer that never reads may not get the close frame: once the server gives up on the connection, the reset
        // (the peer still sends what the server no longer reads) discards what the peer had not read yet. The refusal
        // counted says why.
        try {
            Frame frame = peer.readFrame();
            while (frame.opcode() == opcode) {
                frame = peer.readFrame();
            }
            return frame;
        } catch (IOException reset) {
            return null;
        }
    }

    @Test
    void framesAnsweredAtOnceAreServedWithoutTheStackGrowing() throws Exception {
        StackDepth depth = new StackDepth("/flood");
        try (EmbeddedServer server = EmbeddedServer.start();
                RawSocket peer = RawSocket.connect(clients.webSocket(), server.wsUri(), null, "permessage-deflate")) {
            server.bayeux().addExtension(depth);
            List<String> ids = new CopyOnWriteArrayList<>();
            peer.onReceive(batch -> batch.forEach(reply -> ids.add(String.valueOf(reply.get("id")))));

            // Permessage-deflate too: there Jetty's inflater may deliver a frame on the stack of the thread demanding.
            for (int i = 0; i < FRAMES; i++) {
                peer.send("[{\"channel\":\"/flood\",\"id\":\"" + i + "\"}]");
            }

            Await.until(Duration.ofSeconds(10), ids::size, n -> n == FRAMES, "all " + FRAMES + " frames answered");
            assertEquals(IntStream.range(0, FRAMES).mapToObj(String::valueOf).toList(), ids);
            assertTrue(depth.max() - depth.min() < 100, "stack depth from " + depth.min() + " to " + depth.max());
        }
    }

    private static long refusals(EmbeddedServer server, Limit limit) {
        return server.bayeux().getRefusals().get(limit);
    }

    /**
     * Counts the replies on one channel that the engine produces: how many of a peer's frames the server has read and
     * handled. (Replies, not incoming messages: the engine answers an unknown client before the incoming extensions.)
     */
    private static final class Handled implements Extension {
        private final String channel;
        private final AtomicInteger count = new AtomicInteger();

        Handled(String channel) {
            this.channel = channel;
        }

        @Override
        public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
            if (channel.equals(message.getChannel())) {
                count.incrementAndGet();
            }
            return true;
        }

        int count() {
            return count.get();
        }
    }

    /** The stack depth at which the engine produces replies on one channel, lowest and highest. */
    private static final class StackDepth implements Extension {
        private final String channel;
        private final AtomicInteger min = new AtomicInteger(Integer.MAX_VALUE);
        private final AtomicInteger max = new AtomicInteger();

        StackDepth(String channel) {
            this.channel = channel;
        }

        @Override
        public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
            if (channel.equals(message.getChannel())) {
                int depth = StackWalker.getInstance().walk(frames -> (int) frames.count());
                min.accumulateAndGet(depth, Math::min);
                max.accumulateAndGet(depth, Math::max);
            }
            return true;
        }

        int min() {
            return min.get();
        }

        int max() {
            return max.get();
        }
    }
}
