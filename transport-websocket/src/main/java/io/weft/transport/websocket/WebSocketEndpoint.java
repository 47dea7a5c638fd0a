package io.weft.transport.websocket;

import io.weft.server.api.ClientRequest;
import io.weft.server.api.Limit;
import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import io.weft.server.spi.Addresses;
import io.weft.server.spi.Connection;
import io.weft.server.spi.Inbound;
import io.weft.server.spi.MessageDecodeException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.eclipse.jetty.websocket.api.exceptions.MessageTooLargeException;
import org.eclipse.jetty.websocket.common.WebSocketSession;
import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.OpCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Bayeux {@code websocket} connection, on Jetty's native WebSocket API: each text frame from the client is a
 * batch (a JSON array, or one message object) for the engine, and each {@link #send} from the engine is one text
 * frame to the client.
 *
 * <p>Created by {@link WebSocketTransport} for each accepted upgrade; applications never create or call it. Jetty
 * calls the listener methods, one at a time, on its own threads. Reading is by explicit demand ({@link FrameDemand}):
 * the next frame is read only once the previous batch's replies have been written, so batches reach the engine one at
 * a time and in order, and a client that sends without reading stalls itself rather than growing a queue on the
 * server. The engine calls {@link #send} from any thread, never again before the previous write's promise has
 * completed; the promise is completed from Jetty's write callback. Closing the socket does not end the Bayeux session:
 * it expires after {@code maxInterval} unless a client resumes it on a new socket.
 *
 * <p>What may wait to be written on the socket, our text frames and the pongs answering the client's pings, is bounded
 * by {@code maxPendingFrames}: past it the socket is closed with 1008 and the refusal counted. (Jetty's own
 * {@code maxOutgoingFrames} counts only data frames and fails the write without closing, while pongs, control frames,
 * are what a client that pings without reading multiplies; hence a count of our own, and pings answered here rather
 * than by Jetty.) Nothing thrown while a frame is handled reaches Jetty: it closes the socket with 1011 and a fixed
 * reason, never the failure's details.
 *
 * <p>The class is public only because Jetty requires endpoint classes to be.
 */
public final class WebSocketEndpoint implements Session.Listener, Connection {
    private static final Logger LOG = LoggerFactory.getLogger(WebSocketEndpoint.class);
    /** RFC 6455: a close reason is at most 123 bytes of UTF-8. */
    private static final int MAX_CLOSE_REASON = 123;
    private static final String SERVER_ERROR = "server error";

    private final WebSocketTransport transport;
    private final String browserId;
    private final String issuedBrowserId;
    private final ClientRequest request;
    private final OwnSessions ownSessions;
    private final PeerFaults faults;
    private final int maxPendingFrames;
    /** Frames handed to Jetty and not yet written (or failed): our text frames and our pongs. */
    private final AtomicInteger pendingFrames = new AtomicInteger();
    /** Set by the first close this endpoint starts; frames that arrive afterwards are dropped. */
    private final AtomicBoolean closing = new AtomicBoolean();
    /** Our close frame is written: reading goes on, so that the client's close reply is read. */
    private volatile boolean closeWritten;
    private volatile Session session;
    private volatile FrameDemand demand;
    /** Kept for log lines: Jetty no longer knows it once the socket has closed. */
    private volatile SocketAddress remote;
    private volatile Inbound inbound;

    /** @param request what the upgrade request carried, or null (tests) */
    WebSocketEndpoint(WebSocketTransport transport, String browserId, String issuedBrowserId, ClientRequest request) {
        this.transport = transport;
        this.browserId = browserId;
        this.issuedBrowserId = issuedBrowserId;
        this.request = request;
        this.ownSessions = transport.options().requireHandshakePerConnection() ? new OwnSessions() : null;
        this.faults = transport.faults();
        this.maxPendingFrames = transport.options().maxPendingFrames();
    }

    // ---- Connection: called by the engine ----

    @Override
    public String type() {
        return WebSocketTransport.CONNECTION_TYPE;
    }

    @Override
    public boolean isPersistent() {
        return true;
    }

    /** The browser cookie the upgrade request carried, or null (see the module README for why not a minted one). */
    @Override
    public String browserId() {
        return browserId;
    }

    @Override
    public ClientRequest request() {
        return request;
    }

    /** The browser cookie the upgrade response set, when the request carried none. */
    @Override
    public String issuedBrowserId() {
        return issuedBrowserId;
    }

    /** The client's address, or null before the socket opened. */
    @Override
    public InetAddress remoteAddress() {
        // the upgrade request's address: behind a trusted proxy, the forwarded one
        InetSocketAddress address = request == null ? null : request.getRemoteAddress();
        return address != null ? Addresses.of(address) : Addresses.of(remote);
    }

    @Override
    public void send(List<Message> messages, Promise<Void> written) {
        Session socket = session;
        if (socket == null || !socket.isOpen() || !reserveFrame()) {
            written.fail(new ClosedChannelException());
            return;
        }
        try {
            if (ownSessions != null) {
                ownSessions.learn(messages);
            }
            write(socket, transport.engine().codec().encode(messages), written);
        } catch (Throwable x) {
            pendingFrames.decrementAndGet();
            LOG.warn("websocket to {}: could not write {} messages; closing it (1011)", remote(), messages.size(), x);
            written.fail(x);
            close(StatusCode.SERVER_ERROR, SERVER_ERROR);
        }
    }

    private void write(Session socket, byte[] json, Promise<Void> written) {
        if (socket instanceof WebSocketSession jetty) {
            // The codec already produced UTF-8: hand the bytes to Jetty's core as a text frame, not via a String.
            Frame frame = new Frame(OpCode.TEXT, true, ByteBuffer.wrap(json));
            jetty.getCoreSession().sendFrame(frame, org.eclipse.jetty.util.Callback.from(
                    () -> frameWritten(written, null), x -> frameWritten(written, x)), false);
        } else {
            socket.sendText(new String(json, StandardCharsets.UTF_8),
                    Callback.from(() -> frameWritten(written, null), x -> frameWritten(written, x)));
        }
    }

    private void frameWritten(Promise<Void> written, Throwable failure) {
        pendingFrames.decrementAndGet(); // first: the engine may send the next frame from inside the promise
        if (failure == null) {
            written.succeed(null);
        } else {
            written.fail(failure);
        }
    }

    /** The engine gave up on this socket (its client does not read): 1008 with the engine's reason. */
    @Override
    public void close(String reason) {
        if (close(StatusCode.POLICY_VIOLATION, reason)) {
            faults.pendingFrames(remote(), maxPendingFrames);
        }
    }

    /**
     * Takes one of the {@code maxPendingFrames} places for a frame about to be handed to Jetty. Past the bound the
     * client is not reading what it asks for: the socket is closed with 1008, counted once, and false returned.
     */
    private boolean reserveFrame() {
        if (pendingFrames.incrementAndGet() <= maxPendingFrames) {
            return true;
        }
        pendingFrames.decrementAndGet();
        if (close(StatusCode.POLICY_VIOLATION, "more than " + maxPendingFrames
                + " frames waited to be written (maxPendingFrames): read what the server sends")) {
            transport.engine().refused(Limit.PENDING_FRAMES);
            faults.pendingFrames(remote(), maxPendingFrames);
        }
        return false;
    }

    // ---- Session.Listener: called by Jetty ----

    @Override
    public void onWebSocketOpen(Session session) {
        this.remote = session.getRemoteSocketAddress();
        this.session = session;
        FrameDemand reading = new FrameDemand(session);
        this.demand = reading;
        try {
            this.inbound = transport.engine().open(this);
        } catch (Throwable x) {
            failed(x);
            return;
        }
        reading.next();
    }

    @Override
    public void onWebSocketText(String text) {
        FrameDemand reading = arrived();
        if (reading == null) {
            return;
        }
        try {
            receive(text, reading);
        } catch (Throwable x) {
            failed(x);
        }
    }

    private void receive(String text, FrameDemand reading) {
        List<Message.Mutable> batch;
        try {
            batch = transport.engine().codec().decode(text);
        } catch (MessageDecodeException x) {
            refuse(x);
            return;
        }
        if (ownSessions != null) {
            ownSessions.restrict(batch);
        }
        FrameDemand.Batch processed = reading.batch();
        inbound.receive(batch, processed);
        processed.returned();
    }

    /** Text that is not a batch (1003), or a batch past a limit the codec has already counted (1009). */
    private void refuse(MessageDecodeException x) {
        if (x.limit() != null) {
            faults.overLimit(remote(), x.getMessage());
            close(StatusCode.MESSAGE_TOO_LARGE, x.getMessage());
        } else {
            faults.notBatch(remote(), x.getMessage());
            close(StatusCode.BAD_DATA, x.getMessage());
        }
    }

    @Override
    public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
        int size = payload.remaining();
        callback.succeed();
        if (arrived() == null) {
            return;
        }
        faults.binary(remote(), size);
        close(StatusCode.BAD_DATA, "binary frames are not Bayeux messages: send JSON text");
    }

    /** Answered here, not by Jetty, so that pongs count among the frames waiting to be written. */
    @Override
    public void onWebSocketPing(ByteBuffer payload) {
        FrameDemand reading = arrived();
        if (reading == null) {
            return;
        }
        try {
            if (reserveFrame()) {
                session.sendPong(payload, Callback.from(pendingFrames::decrementAndGet,
                        x -> pendingFrames.decrementAndGet()));
                reading.next();
            }
        } catch (Throwable x) {
            failed(x);
        }
    }

    @Override
    public void onWebSocketError(Throwable cause) {
        if (cause instanceof MessageTooLargeException) {
            // Jetty is closing the socket with 1009 for a frame or message over maxMessageSize.
            transport.engine().refused(Limit.MESSAGE_SIZE);
            faults.tooLarge(remote(), cause.getMessage());
        } else {
            LOG.debug("websocket from {} failed: {}", remote(), cause.toString());
        }
        ended();
    }

    @Override
    public void onWebSocketClose(int statusCode, String reason, Callback callback) {
        LOG.debug("websocket from {} closed: {} {}", remote(), statusCode, reason);
        try {
            ended();
        } finally {
            callback.succeed();
        }
    }

    private void ended() {
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

    /**
     * Accounts for a frame that arrived. A frame that came after we closed is dropped (returns null); once our close
     * frame is written, reading goes on to the reply.
     *
     * @return the demand the frame's handling continues with, or null if the frame is dropped
     */
    private FrameDemand arrived() {
        FrameDemand reading = demand;
        reading.delivered();
        if (!closing.get()) {
            return reading;
        }
        if (closeWritten) {
            reading.next();
        }
        return null;
    }

    /** A bug, not bad input: the operator gets the stack trace, the client a 1011 with a fixed reason. */
    private void failed(Throwable x) {
        LOG.warn("websocket from {}: server failure; closing it (1011)", remote(), x);
        close(StatusCode.SERVER_ERROR, SERVER_ERROR);
    }

    /**
     * Starts closing the socket, unless a close has already started. Reading stops until the close frame is written
     * (a client that reads nothing keeps no reader busy; the idle timeout ends it), then resumes for the reply.
     *
     * @return whether this call started the close
     */
    private boolean close(int status, String reason) {
        if (!closing.compareAndSet(false, true)) {
            return false;
        }
        Session socket = session;
        if (socket != null) {
            try {
                socket.close(status, truncate(reason), Callback.from(this::closeFrameWritten, x -> { }));
            } catch (RuntimeException x) {
                LOG.debug("websocket from {}: close failed: {}", remote(), x.toString());
            }
        }
        return true;
    }

    private void closeFrameWritten() {
        closeWritten = true;
        FrameDemand reading = demand;
        if (reading != null) {
            reading.next();
        }
    }

    private Object remote() {
        SocketAddress address = remote;
        return address == null ? "?" : address;
    }

    static String truncate(String reason) {
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
        return "WebSocketEndpoint[" + remote() + (closing.get() ? " closing" : "") + "]";
    }
}
