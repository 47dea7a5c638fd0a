package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.Extension;
import io.weft.server.api.Limit;
import io.weft.server.api.Message;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.testing.Json;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.stream.IntStream;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A peer that writes without reading: the server reads its next frame only once the previous frame's replies are
 * written, so the peer is stalled after a bounded number of frames (what the socket buffers hold) while other clients
 * go on; and a peer that makes more than {@code maxPendingFrames} frames wait (pings it does not read the pongs of) is
 * closed with 1008. A peer that reads is served frame after frame by loops, not by a recursion per frame.
 */
@Timeout(60)
class BackpressureTest {
    /** Socket buffers on both sides of the flooding peer's connection, small so that the stall comes early. */
    private static final int SMALL_BUFFER = 8 * 1024;
    private static final int FRAMES = 10_000;
    private static final int PINGS = 20_000;
    @RegisterExtension
    static final Clients clients = new Clients();

    private static void smallSendBuffers(ServerConnector connector) {
        connector.setAcceptedSendBufferSize(SMALL_BUFFER);
    }

    @Test
    void peerThatSendsWithoutReadingIsReadNoFurtherUntilItReads() throws Exception {
        Handled flood = new Handled("/flood");
        try (EmbeddedServer server = EmbeddedServer.start(ServerOptions.defaults(), BackpressureTest::smallSendBuffers);
                PlainWebSocket peer = PlainWebSocket.connect(server.wsUri(), SMALL_BUFFER)) {
            server.bayeux().addExtension(flood);

            // Each frame gets a reply (402::session_unknown: the peer never handshakes); the peer reads none of them.
            Thread sender = peer.sendInBackground(FRAMES, i -> "[{\"channel\":\"/flood\",\"id\":\"" + i + "\"}]");

            int stalledAt = awaitSteady(flood::count);
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
    void peerThatFloodsPingsWithoutReadingIsClosedWith1008() throws Exception {
        ServerOptions options = ServerOptions.defaults();
        try (EmbeddedServer server = EmbeddedServer.start(options, BackpressureTest::smallSendBuffers);
                PlainWebSocket peer = PlainWebSocket.connect(server.wsUri(), SMALL_BUFFER);
                ScriptedClient other = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()))) {
            other.handshake();

            Thread sender = peer.pingInBackground(PINGS, 125);

            awaitCondition(() -> refusals(server, Limit.PENDING_FRAMES) == 1, "the peer was refused for its pongs");
            assertEquals(true, other.publish("/chat", "meanwhile").get("successful"));
            // Reading at last: the pongs that were waiting, then the close. A peer that never reads may not get the
            // close frame: once the server gives up on the connection, the reset (the peer still sends pings the
            // server no longer reads) discards what the peer had not read yet. The refusal counted above says why.
            int pongs = 0;
            PlainWebSocket.Frame frame = null;
            try {
                frame = peer.readFrame();
                while (frame.opcode() == PlainWebSocket.PONG) {
                    pongs++;
                    frame = peer.readFrame();
                }
            } catch (java.io.IOException reset) {
                frame = null;
            }
            if (frame != null) {
                assertEquals(PlainWebSocket.CLOSE, frame.opcode());
                assertEquals(StatusCode.POLICY_VIOLATION, frame.closeCode(), frame.closeReason());
                assertTrue(frame.closeReason().contains("maxPendingFrames"), frame.closeReason());
            }
            assertTrue(pongs < PINGS / 10, pongs + " pongs written for " + PINGS + " pings");
            peer.close();
            sender.join(10_000);
            assertEquals(1, refusals(server, Limit.PENDING_FRAMES));
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

            awaitCondition(() -> ids.size() == FRAMES, "all " + FRAMES + " frames answered");
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

    /** Waits until {@code value} has not changed for a second, and returns it. */
    private static int awaitSteady(IntSupplier value) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        int last = value.getAsInt();
        long since = System.nanoTime();
        while (System.nanoTime() - since < 1_000_000_000L) {
            assertTrue(System.nanoTime() < deadline, "still changing after 20 s: " + last);
            Thread.sleep(20);
            int now = value.getAsInt();
            if (now != last) {
                last = now;
                since = System.nanoTime();
            }
        }
        return last;
    }

    private static void awaitCondition(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(10);
        }
    }
}
