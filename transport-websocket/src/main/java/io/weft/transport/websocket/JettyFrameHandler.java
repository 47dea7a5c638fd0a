package io.weft.transport.websocket;

import io.weft.server.api.Promise;
import java.nio.ByteBuffer;
import java.util.Arrays;
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
 * <p>Frames are read one per demand: the next is demanded once the previous one is handed on, and for a ping once its
 * pong is written, so a client that pings without reading stalls itself. Fragmented text messages are assembled here,
 * up to {@code maxMessageSize} (beyond it: 1009). Jetty calls the frame methods one at a time.
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

    BayeuxSocket socket() {
        return socket;
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
                partialLength = 0;
                partial = null;
                text(frame);
            }
            case OpCode.CONTINUATION -> {
                if (!binary) {
                    text(frame);
                }
            }
            case OpCode.BINARY -> {
                binary = !frame.isFin();
                socket.binary(frame.getPayloadLength());
            }
            case OpCode.PING -> {
                // The next frame only once the pong is written: a client that does not read stalls itself.
                Frame pong = new Frame(OpCode.PONG).setPayload(frame.getPayload());
                session.sendFrame(pong, Callback.from(() -> next(callback), x -> next(callback)), false);
                return;
            }
            case OpCode.CLOSE -> {
                // Jetty answers the close; nothing more is read.
                callback.succeeded();
                return;
            }
            default -> { }
        }
        next(callback);
    }

    private void next(Callback callback) {
        callback.succeeded();
        session.demand();
    }

    /** A text frame, or a continuation of one: the message goes to the socket once whole. */
    private void text(Frame frame) {
        if (socket.isClosing()) {
            // what still arrives once the socket is closing is dropped, and not gathered either
            partial = null;
            return;
        }
        ByteBuffer payload = frame.getPayload();
        int length = payload == null ? 0 : payload.remaining();
        if (frame.isFin() && partial == null) {
            if (payload != null && payload.hasArray()) {
                socket.text(payload.array(), payload.arrayOffset() + payload.position(), length);
            } else {
                byte[] copy = new byte[length];
                if (payload != null) {
                    payload.slice().get(copy);
                }
                socket.text(copy, 0, length);
            }
            return;
        }
        if ((long) partialLength + length > maxMessageSize) {
            partial = null;
            String reason = "text message over maxMessageSize (" + maxMessageSize + " bytes)";
            socket.tooLarge(reason);
            socket.close(BayeuxSocket.MESSAGE_TOO_LARGE, reason);
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
        if (frame.isFin()) {
            byte[] whole = partial;
            int wholeLength = partialLength;
            partial = null;
            partialLength = 0;
            socket.text(whole, 0, wholeLength);
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
