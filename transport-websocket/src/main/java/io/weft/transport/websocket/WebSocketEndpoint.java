package io.weft.transport.websocket;

import io.weft.bayeux.Promise;
import io.weft.transport.common.BayeuxSocket;
import io.weft.transport.common.WebSockets;
import jakarta.websocket.CloseReason.CloseCodes;
import jakarta.websocket.CloseReason;
import jakarta.websocket.Endpoint;
import jakarta.websocket.EndpointConfig;
import jakarta.websocket.SendResult;
import jakarta.websocket.Session;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Bayeux socket on the standard Jakarta WebSocket API, for any Servlet container ({@link WebSocketServletMount}):
 * the container calls {@link #onOpen}, the message handlers and {@link #onClose} on its own threads, one message at a
 * time, and this hands them to its {@link BayeuxSocket}.
 *
 * <p>What the Jakarta API cannot do is done as follows. It has no way to stop reading a socket: backpressure is
 * {@link BayeuxSocket}'s bound on batches waiting for their replies. It answers pings itself: Jetty reads the next
 * frame only once the pong is written, and Tomcat writes the pong before it reads on (within its blocking send
 * timeout), so a client that pings without reading stalls itself on both. It tells no endpoint that it refused a
 * message over the size limit, other than by the close code: a close with 1009 that this side did not start is
 * counted as the {@code maxMessageSize} bound.
 *
 * <p>The class is public only because the Jakarta API requires endpoint classes to be.
 */
public final class WebSocketEndpoint extends Endpoint implements BayeuxSocket.Wire {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxSocket.class);

    private final BayeuxSocket socket;
    private final WebSockets transport;
    private volatile Session session;

    WebSocketEndpoint(BayeuxSocket socket, WebSockets transport) {
        this.socket = socket;
        this.transport = transport;
    }

    BayeuxSocket socket() {
        return socket;
    }

    @Override
    public void onOpen(Session session, EndpointConfig config) {
        int maxMessageSize = transport.options().maxMessageSize();
        session.setMaxTextMessageBufferSize(maxMessageSize);
        session.setMaxBinaryMessageBufferSize(maxMessageSize);
        session.setMaxIdleTimeout(transport.idleTimeoutMillis());
        session.addMessageHandler(String.class, socket::text);
        session.addMessageHandler(ByteBuffer.class, payload -> socket.binary(payload.remaining()));
        this.session = session;
        socket.open(this);
    }

    @Override
    public void onError(Session session, Throwable cause) {
        LOG.debug("websocket from {} failed: {}", socket.remote(), cause.toString());
    }

    @Override
    public void onClose(Session session, CloseReason reason) {
        int code = reason.getCloseCode().getCode();
        LOG.debug("websocket from {} closed: {} {}", socket.remote(), code, reason.getReasonPhrase());
        if (code == BayeuxSocket.MESSAGE_TOO_LARGE && !socket.isClosing()) {
            // The container refused a message over maxMessageSize (a client's own 1009 is counted too: it is rare,
            // and the container gives no other sign that it was the one refusing).
            socket.tooLarge(reason.getReasonPhrase());
        }
        socket.ended();
    }

    // ---- BayeuxSocket.Wire ----

    @Override
    public void write(byte[] json, Promise<Void> written) {
        session.getAsyncRemote().sendText(new String(json, StandardCharsets.UTF_8), result -> sent(result, written));
    }

    private static void sent(SendResult result, Promise<Void> written) {
        if (result.isOK()) {
            written.succeed(null);
        } else {
            written.fail(result.getException());
        }
    }

    @Override
    public void close(int code, String reason) {
        try {
            session.close(new CloseReason(CloseCodes.getCloseCode(code), reason));
        } catch (IOException x) {
            LOG.debug("websocket from {}: close failed: {}", socket.remote(), x.toString());
        }
    }

    @Override
    public String toString() {
        return "WebSocketEndpoint[" + socket + "]";
    }
}
