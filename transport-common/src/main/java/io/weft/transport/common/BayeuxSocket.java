package io.weft.transport.common;

import io.weft.bayeux.Message;
import io.weft.bayeux.MessageDecodeException;
import io.weft.bayeux.Promise;
import io.weft.server.api.ClientRequest;
import io.weft.server.api.Limit;
import io.weft.server.spi.Addresses;
import io.weft.server.spi.Connection;
import io.weft.server.spi.Inbound;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Bayeux {@code websocket} connection, whatever WebSocket API carries it: each text message from the client is a
 * batch (a JSON array, or one message object) for the engine, and each {@link #send} from the engine is one text
 * message to the client. The container's side is a {@link Wire}: transport-websocket's {@code WebSocketEndpoint} on
 * the Jakarta API (any Servlet container) and {@code JettyFrameHandler} on Jetty's core WebSocket API (embedded Jetty),
 * transport-netty's {@code NettySocket}.
 *
 * <p>The adapter calls {@link #open}, the message methods and {@link #ended} one at a time, in the order the socket
 * gives them. The engine calls {@link #send} from any thread, never again before the previous write's promise has
 * completed, which is all both APIs allow. Closing the socket does not end the Bayeux session: it expires after
 * {@code maxInterval} unless a client resumes it on a new socket.
 *
 * <p>Backpressure. Where the adapter can stop reading (Jetty's core API), it reads the next message only once the
 * previous one is processed, that is once its replies are written: a client that sends without reading stalls
 * itself. The Jakarta API cannot stop reading, so there each batch goes to the engine as it arrives, and the batches
 * whose replies are not yet written are counted: a client that sends without reading what comes back makes that count
 * grow, and past {@code maxPendingFrames} its socket is closed with 1008 and the refusal counted
 * ({@link Limit#PENDING_FRAMES}). The engine bounds the replies waiting to be written by the same option.
 *
 * <p>Nothing thrown while a message is handled reaches the container: the socket is closed with 1011 and a fixed
 * reason, never the failure's details.
 */
public final class BayeuxSocket implements Connection {
    /** The server is draining: the client comes back through its load balancer, to another node. */
    public static final int GOING_AWAY = 1001;
    public static final int BAD_DATA = 1003;
    public static final int POLICY_VIOLATION = 1008;
    public static final int MESSAGE_TOO_LARGE = 1009;
    public static final int SERVER_ERROR = 1011;
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxSocket.class);
    /** RFC 6455: a close reason is at most 123 bytes of UTF-8. */
    private static final int MAX_CLOSE_REASON = 123;
    private static final String SERVER_FAILURE = "server error";

    /** What a {@link BayeuxSocket} needs of its WebSocket. */
    public interface Wire {
        /** Writes one text message of UTF-8 {@code json}, completing {@code written} when done. One at a time. */
        void write(byte[] json, Promise<Void> written);

        /** Starts the close handshake with {@code code} and {@code reason} (at most 123 bytes of UTF-8, or null). */
        void close(int code, String reason);
    }

    private final WebSockets transport;
    private final String browserId;
    private final ClientRequest request;
    private final PeerFaults faults;
    private final int maxPendingFrames;
    private final int maxMessageSize;
    /** The fragments of a text message so far, or null ({@link #textFrame}: the adapter's reading thread only). */
    private byte[] partial;
    private int partialLength;
    /** Batches received whose replies are not yet written. */
    private final AtomicInteger pendingBatches = new AtomicInteger();
    /** Set by the first close this side starts; messages that arrive afterwards are dropped. */
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile Wire wire;
    private volatile Inbound inbound;

    /** @param request what the upgrade request carried, or null (tests) */
    BayeuxSocket(WebSockets transport, String browserId, ClientRequest request) {
        this.transport = transport;
        this.browserId = browserId;
        this.request = request;
        this.faults = transport.faults();
        this.maxPendingFrames = transport.options().maxPendingFrames();
        this.maxMessageSize = transport.options().maxMessageSize();
    }

    // ---- Connection: called by the engine ----

    @Override
    public String type() {
        return WebSockets.CONNECTION_TYPE;
    }

    @Override
    public boolean isPersistent() {
        return true;
    }

    /** The browser cookie the upgrade request carried, or null (the 101 sets none: see the module README). */
    @Override
    public String browserId() {
        return browserId;
    }

    @Override
    public ClientRequest request() {
        return request;
    }

    /** The client's address as the upgrade request gave it (behind a trusted proxy, the forwarded one), or null. */
    @Override
    public InetAddress remoteAddress() {
        InetSocketAddress address = request == null ? null : request.getRemoteAddress();
        return address == null ? null : Addresses.of(address);
    }

    @Override
    public void send(List<Message> messages, Promise<Void> written) {
        Wire socket = wire;
        if (socket == null || closing.get()) {
            written.fail(new ClosedChannelException());
            return;
        }
        try {
            byte[] frame = transport.engine().codec().encode(messages);
            transport.engine().written(WebSockets.CONNECTION_TYPE, frame.length);
            socket.write(frame, written);
        } catch (Throwable x) {
            LOG.warn("websocket to {}: could not write {} messages; closing it (1011)", remote(), messages.size(), x);
            written.fail(x);
            close(SERVER_ERROR, SERVER_FAILURE);
        }
    }

    /** The engine gave up on this socket (its client does not read): 1008 with the engine's reason. */
    @Override
    public void close(String reason) {
        if (close(POLICY_VIOLATION, reason)) {
            faults.pendingFrames(remote(), maxPendingFrames);
        }
    }

    /** The server is draining and has written its last answer here: 1001, so the client reconnects elsewhere. */
    @Override
    public void goAway() {
        close(GOING_AWAY, "the server is draining: reconnect");
    }

    // ---- called by the adapter ----

    /** The socket is open: the engine learns of the connection. */
    public void open(Wire socket) {
        this.wire = socket;
        transport.opened();
        try {
            this.inbound = transport.engine().open(this);
        } catch (Throwable x) {
            failed(x);
        }
    }

    /** A text message. */
    public void text(String text) {
        handle(() -> transport.engine().codec().decode(text), NOTHING);
    }

    /**
     * A text message, as the UTF-8 bytes it came in; {@code processed} runs once when it is done with: its replies
     * written, or the message refused or dropped (not if the connection ended first: nothing more is read then). An
     * adapter that can stop reading reads the next message then.
     */
    public void text(byte[] utf8, int offset, int length, Runnable processed) {
        handle(() -> transport.engine().codec().decode(utf8, offset, length), processed);
    }

    /**
     * A text frame ({@code first}: it starts a message) or a continuation of one, from an adapter that reads frame by
     * frame: the fragments are gathered here, up to {@code maxMessageSize} (past it the socket is closed with 1009), and
     * a whole message is decoded now (the payload may be released once this returns) and handed to the engine.
     *
     * @return true when the adapter reads the next frame at once (a fragment gathered, or one dropped while the socket
     *     closes or past the bound); false when it reads it once {@code processed} runs, that is once the message is
     *     processed (its replies written): a client that sends without reading stalls itself
     */
    public boolean textFrame(ByteBuffer payload, boolean first, boolean fin, Runnable processed) {
        if (first) {
            partial = null;
            partialLength = 0;
        }
        if (isClosing()) {
            partial = null; // what still arrives once the socket is closing is dropped, and not gathered either
            return true;
        }
        int length = payload == null ? 0 : payload.remaining();
        if (fin && partial == null) {
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
            text(bytes, offset, length, processed);
            return false;
        }
        if ((long) partialLength + length > maxMessageSize) {
            partial = null;
            String reason = "text message over maxMessageSize (" + maxMessageSize + " bytes)";
            tooLarge(reason);
            close(MESSAGE_TOO_LARGE, reason);
            return true;
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
        if (!fin) {
            return true;
        }
        byte[] whole = partial;
        int wholeLength = partialLength;
        partial = null;
        partialLength = 0;
        text(whole, 0, wholeLength, processed);
        return false;
    }

    private static final Runnable NOTHING = () -> { };

    /** How a text message becomes a batch. */
    private interface Decoding {
        List<Message.Mutable> decode() throws MessageDecodeException;
    }

    private void handle(Decoding decoding, Runnable processed) {
        if (closing.get()) {
            processed.run();
            return;
        }
        List<Message.Mutable> batch;
        try {
            batch = decoding.decode();
        } catch (MessageDecodeException x) {
            refuse(x);
            processed.run();
            return;
        } catch (Throwable x) {
            failed(x);
            processed.run();
            return;
        }
        receive(batch, processed);
    }

    private void receive(List<Message.Mutable> batch, Runnable processed) {
        if (pendingBatches.incrementAndGet() > maxPendingFrames) {
            if (close(POLICY_VIOLATION, "more than " + maxPendingFrames + " batches waited for their replies to be "
                    + "written (maxPendingFrames): read what the server sends")) {
                transport.engine().refused(Limit.PENDING_FRAMES);
                faults.pendingFrames(remote(), maxPendingFrames);
            }
            pendingBatches.decrementAndGet();
            processed.run();
            return;
        }
        try {
            inbound.receive(batch, new Promise<>() {
                @Override
                public void succeed(Void result) {
                    pendingBatches.decrementAndGet();
                    processed.run();
                }

                @Override
                public void fail(Throwable failure) {
                    // The connection ended first (a reply could not be written): there is no next frame to read,
                    // and Jetty refuses a demand on a session whose flusher failed (an IllegalStateException it logs
                    // with its stack trace).
                    pendingBatches.decrementAndGet();
                }
            });
        } catch (Throwable x) {
            // A bug, not bad input (receive never throws for that): the promise may never complete.
            failed(x);
        }
    }

    /** Text that is not a batch (1003), or a batch past a limit the codec has already counted (1009). */
    private void refuse(MessageDecodeException x) {
        if (x.bound() != null) {
            faults.overLimit(remote(), x.getMessage());
            close(MESSAGE_TOO_LARGE, x.getMessage());
        } else {
            faults.notBatch(remote(), x.getMessage());
            close(BAD_DATA, x.getMessage());
        }
    }

    /** A binary message: Bayeux is JSON text (1003). */
    public void binary(int size) {
        if (closing.get()) {
            return;
        }
        faults.binary(remote(), size);
        close(BAD_DATA, "binary frames are not Bayeux messages: send JSON text");
    }

    /** A message over {@code maxMessageSize}, refused by the container or by the adapter (which closes with 1009). */
    public void tooLarge(String reason) {
        transport.engine().refused(Limit.MESSAGE_SIZE);
        faults.tooLarge(remote(), reason);
    }

    /** Whether this side has started to close the socket. */
    public boolean isClosing() {
        return closing.get();
    }

    /** The socket has closed (either side) or failed. Once per socket. */
    public void ended() {
        transport.closed();
        Inbound in = inbound;
        if (in == null) {
            return;
        }
        try {
            in.closed();
        } catch (Throwable x) {
            LOG.warn("websocket from {}: the engine failed to end the connection", remote(), x);
        }
    }

    /** A bug, not bad input: the operator gets the stack trace, the client a 1011 with a fixed reason. */
    public void failed(Throwable x) {
        LOG.warn("websocket from {}: server failure; closing it (1011)", remote(), x);
        close(SERVER_ERROR, SERVER_FAILURE);
    }

    /**
     * Starts closing the socket, unless a close has already started.
     *
     * @return whether this call started the close
     */
    public boolean close(int code, String reason) {
        if (!closing.compareAndSet(false, true)) {
            return false;
        }
        Wire socket = wire;
        if (socket != null) {
            try {
                socket.close(code, truncate(reason));
            } catch (RuntimeException x) {
                LOG.debug("websocket from {}: close failed: {}", remote(), x.toString());
            }
        }
        return true;
    }

    public Object remote() {
        InetSocketAddress address = request == null ? null : request.getRemoteAddress();
        return address == null ? "?" : address;
    }

    public static String truncate(String reason) {
        if (reason == null) {
            return null;
        }
        String result = reason;
        while (result.getBytes(StandardCharsets.UTF_8).length > MAX_CLOSE_REASON) {
            int end = result.length() - 1;
            if (end > 0 && Character.isHighSurrogate(result.charAt(end - 1))) {
                end--;
            }
            result = result.substring(0, end);
        }
        return result;
    }

    @Override
    public String toString() {
        return "WebSocket[" + remote() + (closing.get() ? " closing" : "") + "]";
    }
}
