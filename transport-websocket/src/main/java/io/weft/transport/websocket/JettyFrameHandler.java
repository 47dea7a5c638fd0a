package io.weft.transport.websocket;

import io.weft.bayeux.Promise;
import io.weft.transport.common.BayeuxSocket;
import java.nio.ByteBuffer;
import java.util.Arrays;
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
 * here, up to {@code maxMessageSize} (beyond it: 1009). Jetty calls the frame methods one at a time.
 */
final class JettyFrameHandler implements FrameHandler, BayeuxSocket.Wire {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxSocket.class);

    private final BayeuxSocket socket;
    private final int maxMessageSize;
    private volatile CoreSession session;
    /** The fragments of a text message so far, or null; {@link #binary} while a binary message goes on. */
    private byte[] partial;
    private int partialLength;
    private boolean binary;

    JettyFrameHandler(BayeuxSocket socket, int maxMessageSize) {
        this.socket = socket;
        this.maxMessageSize = maxMessageSize;
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
                partial = null;
                partialLength = 0;
                text(frame, callback);
            }
            case OpCode.CONTINUATION -> {
                if (binary) {
                    next(callback);
                } else {
                    text(frame, callback);
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

    /**
     * A text frame, or a continuation of one. A whole message goes to the socket, and the next frame is read once the
     * socket has processed it (its replies are written: a client that sends without reading stalls itself); a
     * fragment is gathered, and the next one read at once.
     */
    private void text(Frame frame, Callback callback) {
        if (socket.isClosing()) {
            // what still arrives once the socket is closing is dropped, and not gathered either
            partial = null;
            next(callback);
            return;
        }
        ByteBuffer payload = frame.getPayload();
        int length = payload == null ? 0 : payload.remaining();
        if (frame.isFin() && partial == null) {
            byte[] bytes;
            int offset;
            if (payload != null && payload.hasArray()) {
                bytes = payload.array();
                offset = payload.arrayOffset() + payload.position();
            } else {
                bytes = new byte[length];
                offset = 0;
                if (payload != null) {
                    payload.slice().get(bytes);
                }
            }
            // decoded before the frame's buffer is released; the demand waits for the batch's replies
            socket.text(bytes, offset, length, new Demand());
            callback.succeeded();
            return;
        }
        if ((long) partialLength + length > maxMessageSize) {
            partial = null;
            String reason = "text message over maxMessageSize (" + maxMessageSize + " bytes)";
            socket.tooLarge(reason);
            socket.close(BayeuxSocket.MESSAGE_TOO_LARGE, reason);
            next(callback);
            return;
        }
        if (partial == null) {
            partial = new byte[Math.min(Math.max(length * 2, 1024), maxMessageSize)];
            partialLength = 0;
        } else if (partial.length < partialLength + length) {
            partial = Arrays.copyOf(partial, Math.min(Math.max(partial.length * 2, partialLength + length),
                    maxMessageSize));
        }
        if (payload != null) {
            payload.slice().get(partial, partialLength, length);
        }
        partialLength += length;
        if (!frame.isFin()) {
            next(callback);
            return;
        }
        byte[] whole = partial;
        int wholeLength = partialLength;
        partial = null;
        partialLength = 0;
        callback.succeeded();
        socket.text(whole, 0, wholeLength, new Demand());
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
