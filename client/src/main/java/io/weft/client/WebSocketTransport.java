package io.weft.client;

import io.weft.bayeux.Message;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.JettyUpgradeListener;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code websocket} connection type: one socket per client, opened on the first batch and again after it closes;
 * each batch is one text frame holding a JSON array, and every frame the server pushes is a batch. Batches sent while
 * the socket is opening wait for it, in order. The upgrade request carries the client's cookies and the upgrade
 * response's cookies go into the client's jar, so a session stays bound to one browser across transports.
 */
final class WebSocketTransport implements ClientTransport {
    static final String NAME = "websocket";
    private static final Logger LOG = LoggerFactory.getLogger(WebSocketTransport.class);
    private static final long IDLE_MARGIN_MILLIS = 5_000;

    private final WebSocketClient client;
    private final Context context;
    private final URI uri;
    private final URI httpUri;
    private final long connectTimeoutMillis;
    private final Object lock = new Object();
    private Socket socket;

    WebSocketTransport(WebSocketClient client, Context context, long connectTimeoutMillis) {
        this.client = client;
        this.context = context;
        this.httpUri = URI.create(context.url());
        String scheme = "https".equalsIgnoreCase(httpUri.getScheme()) ? "wss" : "ws";
        this.uri = URI.create(scheme + context.url().substring(httpUri.getScheme().length()));
        this.connectTimeoutMillis = connectTimeoutMillis;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean isPersistent() {
        return true;
    }

    @Override
    public void send(List<Message.Mutable> batch, long timeoutMillis) {
        String text;
        try {
            text = Messages.encodeText(batch);
        } catch (RuntimeException x) {
            context.receiver().onFailure(this, batch, x);
            return;
        }
        Frame frame = new Frame(batch, text, timeoutMillis);
        Socket target;
        boolean open;
        synchronized (lock) {
            target = socket;
            if (target == null) {
                target = socket = new Socket();
                target.queued.add(frame);
                open = false;
            } else if (target.session == null) {
                target.queued.add(frame);
                return;
            } else {
                // Written under the lock so frames leave in the order they were sent; the write itself is queued by
                // Jetty and never blocks.
                target.write(frame);
                return;
            }
        }
        if (!open) {
            connect(target);
        }
    }

    private void connect(Socket target) {
        ClientUpgradeRequest upgrade = new ClientUpgradeRequest(uri);
        upgrade.setTimeout(connectTimeoutMillis, TimeUnit.MILLISECONDS);
        CompletableFuture<Session> future;
        try {
            future = client.connect(target, upgrade, new CookieExchange());
        } catch (IOException | RuntimeException x) {
            target.ended(x);
            return;
        }
        target.connecting = future;
        future.whenComplete((session, failure) -> {
            if (failure != null) {
                target.ended(failure);
            }
        });
    }

    @Override
    public void close() {
        Socket target;
        synchronized (lock) {
            target = socket;
            socket = null;
        }
        if (target != null) {
            target.close();
        }
    }

    private record Frame(List<Message.Mutable> batch, String text, long timeoutMillis) {
    }

    /** Adds the client's cookies to the upgrade request and keeps those the upgrade response sets. */
    private final class CookieExchange implements JettyUpgradeListener {
        @Override
        public void onHandshakeRequest(Request request) {
            String cookie = context.cookies().header(httpUri);
            if (cookie != null) {
                request.headers(headers -> headers.put(HttpHeader.COOKIE, cookie));
            }
        }

        @Override
        public void onHandshakeResponse(Request request, Response response) {
            for (String setCookie : response.getHeaders().getValuesList(HttpHeader.SET_COOKIE)) {
                context.cookies().store(httpUri, setCookie);
            }
        }
    }

    /**
     * One WebSocket connection and the frames waiting for it to open. Public only because Jetty's native API calls
     * listener methods reflectively; not part of the client's API.
     */
    public final class Socket implements Session.Listener.AutoDemanding {
        private final List<Frame> queued = new ArrayList<>();
        private Session session;
        private volatile CompletableFuture<Session> connecting;
        private boolean ended;

        @Override
        public void onWebSocketOpen(Session opened) {
            synchronized (lock) {
                if (socket != this) {
                    opened.close(StatusCode.NORMAL, "closed", Callback.NOOP);
                    return;
                }
                session = opened;
                for (Frame frame : queued) {
                    write(frame);
                }
                queued.clear();
            }
        }

        /** Called under the transport's lock, with the session open. */
        void write(Frame frame) {
            long idle = frame.timeoutMillis() + IDLE_MARGIN_MILLIS;
            if (session.getIdleTimeout().toMillis() < idle) {
                session.setIdleTimeout(Duration.ofMillis(idle));
            }
            session.sendText(frame.text(), Callback.from(() -> { },
                    failure -> context.receiver().onFailure(WebSocketTransport.this, frame.batch(), failure)));
        }

        @Override
        public void onWebSocketText(String text) {
            List<Message.Mutable> messages;
            try {
                messages = Messages.decode(text);
            } catch (IOException x) {
                LOG.debug("Ignoring a frame that is not a Bayeux batch from {}: {}", uri, x.getMessage());
                return;
            }
            context.receiver().onMessages(WebSocketTransport.this, messages, null);
        }

        @Override
        public void onWebSocketClose(int statusCode, String reason, Callback callback) {
            callback.succeed();
            ended(new IOException("websocket closed: " + statusCode + " " + reason));
        }

        @Override
        public void onWebSocketError(Throwable cause) {
            ended(cause);
        }

        void close() {
            Session open;
            synchronized (lock) {
                open = session;
            }
            if (open != null) {
                open.close(StatusCode.NORMAL, "disconnect", Callback.NOOP);
            } else {
                CompletableFuture<Session> pending = connecting;
                if (pending != null) {
                    pending.cancel(true);
                }
            }
            ended(new IOException("transport closed"));
        }

        /** The connection is over (or never opened): fail what waited for it, once. */
        void ended(Throwable cause) {
            List<Frame> failed;
            synchronized (lock) {
                if (ended) {
                    return;
                }
                ended = true;
                if (socket == this) {
                    socket = null;
                }
                failed = new ArrayList<>(queued);
                queued.clear();
            }
            for (Frame frame : failed) {
                context.receiver().onFailure(WebSocketTransport.this, frame.batch(), cause);
            }
            context.receiver().onClosed(WebSocketTransport.this, cause);
        }
    }
}
