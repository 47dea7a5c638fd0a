package io.weft.transport.websocket;

import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import io.weft.server.spi.Connection;
import io.weft.server.spi.Inbound;
import io.weft.server.spi.MessageDecodeException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.StatusCode;
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
 * calls the listener methods, one at a time, on its own threads; the next frame is read only when
 * {@link #onWebSocketText} has returned, so batches reach the engine in order. The engine calls {@link #send} from
 * any thread, never again before the previous write's promise has completed; the promise is completed from Jetty's
 * write callback. Closing the socket does not end the Bayeux session: it expires after {@code maxInterval} unless a
 * client resumes it on a new socket.
 *
 * <p>The class is public only because Jetty requires endpoint classes to be.
 */
public final class WebSocketEndpoint implements Session.Listener.AutoDemanding, Connection {
    private static final Logger LOG = LoggerFactory.getLogger(WebSocketEndpoint.class);
    /** RFC 6455: a close reason is at most 123 bytes of UTF-8. */
    private static final int MAX_CLOSE_REASON = 123;

    private final WebSocketTransport transport;
    private final String browserId;
    private final OwnSessions ownSessions;
    private volatile Session session;
    /** Kept for log lines: Jetty no longer knows it once the socket has closed. */
    private volatile SocketAddress remote;
    private volatile Inbound inbound;

    WebSocketEndpoint(WebSocketTransport transport, String browserId) {
        this.transport = transport;
        this.browserId = browserId;
        this.ownSessions = transport.options().requireHandshakePerConnection() ? new OwnSessions() : null;
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
    public void send(List<Message> messages, Promise<Void> written) {
        Session socket = session;
        if (socket == null || !socket.isOpen()) {
            written.fail(new ClosedChannelException());
            return;
        }
        if (ownSessions != null) {
            ownSessions.learn(messages);
        }
        byte[] json;
        try {
            json = transport.engine().codec().encode(messages);
        } catch (RuntimeException x) {
            LOG.warn("websocket to {}: could not encode {} messages", remote(), messages.size(), x);
            written.fail(x);
            close(StatusCode.SERVER_ERROR, "server error");
            return;
        }
        if (socket instanceof WebSocketSession jetty) {
            // The codec already produced UTF-8: hand the bytes to Jetty's core as a text frame, not via a String.
            Frame frame = new Frame(OpCode.TEXT, true, ByteBuffer.wrap(json));
            jetty.getCoreSession().sendFrame(frame,
                    org.eclipse.jetty.util.Callback.from(() -> written.succeed(null), written::fail), false);
        } else {
            socket.sendText(new String(json, StandardCharsets.UTF_8),
                    Callback.from(() -> written.succeed(null), written::fail));
        }
    }

    // ---- Session.Listener: called by Jetty ----

    @Override
    public void onWebSocketOpen(Session session) {
        this.remote = session.getRemoteSocketAddress();
        this.session = session;
        this.inbound = transport.engine().open(this);
    }

    @Override
    public void onWebSocketText(String text) {
        List<Message.Mutable> batch;
        try {
            batch = transport.engine().codec().decode(text);
        } catch (MessageDecodeException x) {
            LOG.info("closing websocket from {}: not a Bayeux batch: {}", remote(), x.getMessage());
            close(StatusCode.BAD_DATA, x.getMessage());
            return;
        }
        if (ownSessions != null) {
            ownSessions.restrict(batch);
        }
        try {
            inbound.receive(batch);
        } catch (RuntimeException x) {
            // The engine answers bad input itself; reaching here is a bug, which must not leave the socket half-served.
            LOG.warn("websocket from {}: batch failed", remote(), x);
            close(StatusCode.SERVER_ERROR, "server error");
        }
    }

    @Override
    public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
        callback.succeed();
        LOG.info("closing websocket from {}: binary frame ({} bytes); Bayeux is JSON text", remote(),
                payload.remaining());
        close(StatusCode.BAD_DATA, "binary frames are not Bayeux messages: send JSON text");
    }

    @Override
    public void onWebSocketError(Throwable cause) {
        LOG.debug("websocket from {} failed: {}", remote(), cause.toString());
        ended();
    }

    @Override
    public void onWebSocketClose(int statusCode, String reason, Callback callback) {
        if (statusCode == StatusCode.MESSAGE_TOO_LARGE) {
            // Jetty closed it (a frame or message over maxMessageSize): the one line the operator sees.
            LOG.info("closed websocket from {} (1009): {}", remote(), reason);
        } else {
            LOG.debug("websocket from {} closed: {} {}", remote(), statusCode, reason);
        }
        try {
            ended();
        } finally {
            callback.succeed();
        }
    }

    private void ended() {
        Inbound in = inbound;
        if (in != null) {
            in.closed();
        }
    }

    private void close(int status, String reason) {
        Session socket = session;
        if (socket != null) {
            socket.close(status, truncate(reason), Callback.NOOP);
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
        return "WebSocketEndpoint[" + remote() + "]";
    }
}
