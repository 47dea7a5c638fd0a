package io.weft.transport.websocket;

import io.weft.bayeux.Promise;
import io.weft.transport.common.BayeuxSocket;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.core.CloseStatus;
import org.eclipse.jetty.websocket.core.CoreSession;
import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.FrameHandler;
import org.eclipse.jetty.websocket.core.OpCode;
import org.eclipse.jetty.websocket.core.exception.MessageTooLargeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Bayeux socket on Jetty's core WebSocket API, for embedded Jetty ({@link WebSocketHandler}): Jetty calls it frame by
 * frame, and it gives its {@link BayeuxSocket} whole text messages.
 *
 * <p>Why not the Jakarta API here too: on Jetty, a Jakarta session costs about 4 KB of heap more per idle socket (a
 * registry of encoders and decoders per session, among others; docs/benchmarks/websocket-idle-memory.md), and takes
 * every outgoing message as a {@code String} where the codec has produced UTF-8 bytes already. The core API is Jetty's
 * public, exported one ({@code org.eclipse.jetty.websocket.core}); nothing of the upgrade request is kept.
 *
 * <p>Frames are read one per demand: after a whole text message, the next is demanded once the message is processed
 * (its replies written), and after a ping once its pong is written, so a client that sends or pings without reading
 * stalls itself, and batches reach the engine one at a time and in order. Fragmented text messages are assembled
 * by the socket ({@link BayeuxSocket#textFrame}), up to {@code maxMessageSize} (beyond it: 1009). Jetty calls the
 * frame methods one at a time.
 */
final class JettyFrameHandler implements FrameHandler, BayeuxSocket.Wire {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxSocket.class);

    private final BayeuxSocket socket;
    private volatile CoreSession session;
    /** Whether a binary message goes on (its continuations are skipped). */
    private boolean binary;

    JettyFrameHandler(BayeuxSocket socket) {
        this.socket = socket;
    }

    /** The core session, once open (tests look at how it was configured). */
    CoreSession session() {
        return session;
    }

    @Override
    public void onOpen(CoreSession coreSession, Callback callback) {
        this.session = coreSession;
        socket.open(this);
        callback.succeeded();
        coreSession.demand();
    }

    @Override
    public void onFrame(Frame frame, Callback callback) {
        switch (frame.getOpCode()) {
            case OpCode.TEXT -> {
                binary = false;
                text(frame, true, callback);
            }
            case OpCode.CONTINUATION -> {
                if (binary) {
                    next(callback);
                } else {
                    text(frame, false, callback);
                }
            }
            case OpCode.BINARY -> {
                binary = !frame.isFin();
                socket.binary(frame.getPayloadLength());
                next(callback);
            }
            case OpCode.PING -> {
                // The next frame only once the pong is written: a client that does not read stalls itself.
                Frame pong = new Frame(OpCode.PONG).setPayload(frame.getPayload());
                session.sendFrame(pong, Callback.from(() -> next(callback), x -> next(callback)), false);
            }
            case OpCode.CLOSE -> callback.succeeded(); // Jetty answers the close; nothing more is read
            default -> next(callback);
        }
    }

    /** Done with a frame: the next one is read. */
    private void next(Callback callback) {
        callback.succeeded();
        session.demand();
    }

    /** A text frame, or a continuation of one ({@code first}: a text frame): the socket gathers and handles it. */
    private void text(Frame frame, boolean first, Callback callback) {
        // the payload is decoded (or copied) before the callback releases it
        boolean readNow = socket.textFrame(frame.getPayload(), first, frame.isFin(), new Demand());
        callback.succeeded();
        if (readNow) {
            session.demand();
        }
    }

    /**
     * Reads the next frame once a message is processed: once, whichever thread completes it. Jetty 12.1 takes a demand
     * made on the thread inside {@link #onFrame} as a note for its read loop, and one made on another thread (a write
     * completing) as a read handed to its executor: the stack does not grow a level per frame with a fast client.
     */
    private final class Demand extends AtomicBoolean implements Runnable {
        private static final long serialVersionUID = 1L;

        @Override
        public void run() {
            if (compareAndSet(false, true)) {
                session.demand();
            }
        }
    }

    @Override
    public void onError(Throwable cause, Callback callback) {
        if (cause instanceof MessageTooLargeException) {
            // Jetty is closing the socket with 1009 for a frame over maxMessageSize.
            socket.tooLarge(cause.getMessage());
        } else {
            LOG.debug("websocket from {} failed: {}", socket.remote(), cause.toString());
        }
        callback.succeeded();
    }

    @Override
    public void onClosed(CloseStatus closeStatus, Callback callback) {
        LOG.debug("websocket from {} closed: {}", socket.remote(), closeStatus);
        try {
            socket.ended();
        } finally {
            callback.succeeded();
        }
    }

    // ---- BayeuxSocket.Wire ----

    @Override
    public void write(byte[] json, Promise<Void> written) {
        // The codec already produced UTF-8: the bytes go out as the text frame's payload, not via a String.
        session.sendFrame(new Frame(OpCode.TEXT, true, ByteBuffer.wrap(json)),
                Callback.from(() -> written.succeed(null), written::fail), false);
    }

    @Override
    public void close(int code, String reason) {
        session.close(code, reason, Callback.NOOP);
    }
}
