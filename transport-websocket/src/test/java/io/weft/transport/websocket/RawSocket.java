package io.weft.transport.websocket;

import io.weft.server.testing.Inbox;
import io.weft.server.testing.Json;
import io.weft.server.testing.Wire;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/**
 * A raw WebSocket client on Jetty's {@link WebSocketClient}: sends JSON text as given, collects what the server writes,
 * and can stop reading (no demand) to act as a client that no longer reads its socket.
 */
public final class RawSocket implements Session.Listener, Wire {
    private final Inbox inbox = new Inbox();
    private final CompletableFuture<Closed> closed = new CompletableFuture<>();
    private final List<Consumer<List<Map<String, Object>>>> listeners = new CopyOnWriteArrayList<>();
    private volatile Session session;
    private volatile boolean paused;
    private volatile boolean demandPending;

    /** How the server closed the socket. */
    record Closed(int code, String reason) {
    }

    /** Connects, with {@code cookie} as the whole {@code Cookie} header (null: none), offering {@code extensions}. */
    static RawSocket connect(WebSocketClient client, URI uri, String cookie, String... extensions) throws Exception {
        RawSocket socket = new RawSocket();
        ClientUpgradeRequest request = new ClientUpgradeRequest();
        if (cookie != null) {
            request.setHeader("Cookie", cookie);
        }
        if (extensions.length > 0) {
            request.addExtensions(extensions);
        }
        client.connect(socket, uri, request).get(5, TimeUnit.SECONDS);
        return socket;
    }

    static RawSocket connect(WebSocketClient client, URI uri) throws Exception {
        return connect(client, uri, null);
    }

    @Override
    public void onWebSocketOpen(Session session) {
        this.session = session;
        // The server's limits are under test, not the client's: let this client read whatever the server writes.
        session.setMaxTextMessageSize(64L * 1024 * 1024);
        session.setMaxFrameSize(64L * 1024 * 1024);
        session.demand();
    }

    @Override
    public void onWebSocketText(String text) {
        List<Map<String, Object>> batch = text.startsWith("[") ? Json.array(text) : Json.array("[" + text + "]");
        listeners.forEach(listener -> listener.accept(batch));
        inbox.add(batch);
        synchronized (this) {
            if (paused) {
                demandPending = true;
                return;
            }
        }
        session.demand();
    }

    @Override
    public void onWebSocketClose(int statusCode, String reason, Callback callback) {
        closed.complete(new Closed(statusCode, reason));
        callback.succeed();
    }

    @Override
    public void onWebSocketError(Throwable cause) {
        closed.complete(new Closed(-1, cause.toString()));
    }

    @Override
    public String connectionType() {
        return "websocket";
    }

    @Override
    public void send(String batch) {
        session.sendText(batch, Callback.NOOP);
    }

    /** Sends a text frame and waits until it is written. */
    void sendAndWait(String text) throws Exception {
        Callback.Completable written = new Callback.Completable();
        session.sendText(text, written);
        written.get(5, TimeUnit.SECONDS);
    }

    @Override
    public Inbox inbox() {
        return inbox;
    }

    @Override
    public void onReceive(Consumer<List<Map<String, Object>>> listener) {
        listeners.add(listener);
    }

    /** Stops reading from the socket once the current frame is handled: the server's writes back up. */
    synchronized void pauseReading() {
        paused = true;
    }

    void resumeReading() {
        boolean demand;
        synchronized (this) {
            paused = false;
            demand = demandPending;
            demandPending = false;
        }
        if (demand) {
            session.demand();
        }
    }

    Session session() {
        return session;
    }

    /** The {@code Set-Cookie} headers of the upgrade response. */
    List<String> setCookies() {
        return session.getUpgradeResponse().getHeaders("Set-Cookie");
    }

    /** How the socket closed, waiting up to {@code seconds}. */
    Closed awaitClose(long seconds) throws Exception {
        return closed.get(seconds, TimeUnit.SECONDS);
    }

    boolean isOpen() {
        return session.isOpen() && !closed.isDone();
    }

    @Override
    public void close() {
        Session s = session;
        if (s != null && s.isOpen()) {
            s.close();
        }
    }
}
