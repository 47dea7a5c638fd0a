package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.common.WebSockets;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.core.CoreSession;
import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.OpCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link JettyFrameHandler} on a Jetty core session played by the test: what it asks of Jetty, and when. */
@Timeout(10)
class JettyFrameHandlerTest {
    private final BayeuxServer bayeux = BayeuxServer.create(ServerOptions.defaults());

    @AfterEach
    void close() {
        bayeux.close();
    }

    /** A session whose client has gone: every write fails. Counts the reads asked for. */
    private static final class GoneSession extends CoreSession.Empty {
        final AtomicInteger demands = new AtomicInteger();

        @Override
        public void sendFrame(Frame frame, Callback callback, boolean batch) {
            callback.failed(new ClosedChannelException());
        }

        @Override
        public void demand() {
            demands.incrementAndGet();
        }
    }

    /**
     * A batch whose replies cannot be written (the client closed its socket meanwhile) asks for no next frame: there
     * is none to read, and Jetty, whose flusher has failed, answered the demand with an IllegalStateException that it
     * logged as a WARN with its stack trace (seen with Faye's browser client, which closes its socket on disconnect).
     */
    @Test
    void aBatchWhoseRepliesCannotBeWrittenAsksForNoNextFrame() {
        WebSockets transport = WebSockets.of(bayeux);
        JettyFrameHandler handler = new JettyFrameHandler(transport.accept(List.of(), null));
        GoneSession session = new GoneSession();
        handler.onOpen(session, Callback.NOOP);
        assertEquals(1, session.demands.get(), "the first frame is asked for when the socket opens");

        byte[] handshake = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]"
                .getBytes(StandardCharsets.UTF_8);
        handler.onFrame(new Frame(OpCode.TEXT, true, ByteBuffer.wrap(handshake)), Callback.NOOP);

        assertEquals(1, session.demands.get(), "no next frame asked for once the reply's write failed");
    }
}
