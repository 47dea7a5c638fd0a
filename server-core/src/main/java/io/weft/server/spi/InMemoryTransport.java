package io.weft.server.spi;

import io.weft.bayeux.Message;
import io.weft.bayeux.MessageDecodeException;
import io.weft.bayeux.Promise;
import io.weft.server.api.BayeuxServer;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A transport without sockets, for tests and for code that talks Bayeux inside the JVM. JSON text goes in exactly
 * as a client would send it and JSON text comes out exactly as a client would read it, through the same engine
 * path as the network transports.
 *
 * <p>{@link #polling} behaves like HTTP long-polling (one request, one response, possibly held);
 * {@link #websocket} like a WebSocket (a persistent connection that receives pushed frames).
 */
public final class InMemoryTransport {
    private final Engine engine;
    private final String type;
    private final boolean persistent;
    private final InetAddress remoteAddress;

    private InMemoryTransport(BayeuxServer server, String type, boolean persistent) {
        this(Engine.of(server), type, persistent, null);
        engine.addConnectionType(type);
    }

    private InMemoryTransport(Engine engine, String type, boolean persistent, InetAddress remoteAddress) {
        this.engine = engine;
        this.type = Objects.requireNonNull(type, "type");
        this.persistent = persistent;
        this.remoteAddress = remoteAddress;
    }

    /** The same transport, its connections coming from {@code address} (by default they come from nowhere: null). */
    public InMemoryTransport from(InetAddress address) {
        return new InMemoryTransport(engine, type, persistent, Objects.requireNonNull(address, "address"));
    }

    /** A one-shot request/response transport of connection type {@code long-polling}. */
    public static InMemoryTransport polling(BayeuxServer server) {
        return new InMemoryTransport(server, "long-polling", false);
    }

    /** A transport of any connection type, persistent (pushing) or one request per response. */
    public static InMemoryTransport of(BayeuxServer server, String type, boolean persistent) {
        return new InMemoryTransport(server, type, persistent);
    }

    /** A persistent, pushing transport of connection type {@code websocket}. */
    public static InMemoryTransport websocket(BayeuxServer server) {
        return new InMemoryTransport(server, "websocket", true);
    }

    /**
     * Sends one request body from a browser (null: a client without cookies). The future completes with the response
     * body: at once, or when a held {@code /meta/connect} ends. It fails with {@link MessageDecodeException} if the
     * body is not a Bayeux batch.
     */
    public CompletableFuture<String> request(String browserId, String body) {
        return exchange(browserId, body).response();
    }

    /** As {@link #request(String, String)}, returning the exchange so that the client can vanish while it is held. */
    public Exchange exchange(String browserId, String body) {
        if (persistent) {
            throw new IllegalStateException("a websocket transport has no requests: use open()");
        }
        Exchange exchange = new Exchange(browserId);
        try {
            List<Message.Mutable> batch = engine.codec().decode(body);
            exchange.inbound = engine.open(exchange);
            exchange.inbound.receive(batch);
        } catch (MessageDecodeException x) {
            exchange.response.completeExceptionally(x);
        }
        return exchange;
    }

    /** As {@link #request(String, String)} from a client without cookies. */
    public CompletableFuture<String> request(String body) {
        return request(null, body);
    }

    /** Opens a persistent connection from a browser (null: a client without cookies). */
    public Socket open(String browserId) {
        if (!persistent) {
            throw new IllegalStateException("a polling transport has no sockets: use request()");
        }
        Socket socket = new Socket(browserId);
        socket.inbound = engine.open(socket);
        return socket;
    }

    private abstract class Base implements Connection {
        private final String browserId;

        Base(String browserId) {
            this.browserId = browserId;
        }

        @Override
        public String type() {
            return type;
        }

        @Override
        public boolean isPersistent() {
            return persistent;
        }

        @Override
        public String browserId() {
            return browserId;
        }

        @Override
        public InetAddress remoteAddress() {
            return remoteAddress;
        }

        String encode(List<Message> messages) {
            byte[] json = engine.codec().encode(messages);
            engine.written(type(), json.length);
            return new String(json, StandardCharsets.UTF_8);
        }
    }

    /** One request and its response. */
    public final class Exchange extends Base {
        private final CompletableFuture<String> response = new CompletableFuture<>();
        private Inbound inbound;
        private volatile boolean goneAway;

        Exchange(String browserId) {
            super(browserId);
        }

        /**
         * Whether the engine asked for the network connection to be closed behind this response (a draining server;
         * over HTTP, {@code Connection: close}).
         */
        public boolean wentAway() {
            return goneAway;
        }

        @Override
        public void goAway() {
            goneAway = true;
        }

        /** The response body, when the server sends it. */
        public CompletableFuture<String> response() {
            return response;
        }

        /** The client goes away without waiting for the response, as a closed browser tab would. */
        public void abandon() {
            response.cancel(false);
            if (inbound != null) {
                inbound.closed();
            }
        }

        @Override
        public void send(List<Message> messages, Promise<Void> written) {
            if (response.isDone()) {
                written.fail(new IllegalStateException("response already sent, or the client went away"));
                return;
            }
            response.complete(encode(messages));
            written.succeed(null);
        }
    }

    /**
     * A persistent connection. Frames the server writes arrive in {@link #frames()}. {@link #pause()} makes the
     * socket stop completing writes, as a client that stops reading would; {@link #resume()} completes them.
     */
    public final class Socket extends Base {
        private final BlockingQueue<String> frames = new LinkedBlockingQueue<>();
        private final ArrayDeque<Promise<Void>> stalled = new ArrayDeque<>();
        private Inbound inbound;
        private boolean paused;
        private boolean closed;
        private String closeReason;
        private boolean goneAway;

        Socket(String browserId) {
            super(browserId);
        }

        /** Sends one frame of JSON text. */
        public void send(String frame) throws MessageDecodeException {
            inbound.receive(engine.codec().decode(frame));
        }

        /** Every frame written to this socket so far and not yet taken. */
        public BlockingQueue<String> frames() {
            return frames;
        }

        /** The next frame, waiting up to {@code seconds}; null if none came. */
        public String nextFrame(long seconds) throws InterruptedException {
            return frames.poll(seconds, TimeUnit.SECONDS);
        }

        @Override
        public void send(List<Message> messages, Promise<Void> written) {
            synchronized (this) {
                if (closed) {
                    written.fail(new IllegalStateException("closed"));
                    return;
                }
                frames.add(encode(messages));
                if (paused) {
                    stalled.add(written);
                    return;
                }
            }
            written.succeed(null);
        }

        public synchronized void pause() {
            paused = true;
        }

        public void resume() {
            Promise<Void> next;
            synchronized (this) {
                paused = false;
                next = stalled.poll();
            }
            while (next != null) {
                next.succeed(null);
                synchronized (this) {
                    next = paused ? null : stalled.poll();
                }
            }
        }

        /** The reason the engine gave when it gave up on this socket ({@link Connection#close(String)}), or null. */
        public synchronized String closeReason() {
            return closeReason;
        }

        @Override
        public void close(String reason) {
            synchronized (this) {
                closeReason = reason;
                closed = true;
            }
            inbound.closed();
        }

        /** Whether the engine closed this socket as going away (a draining server; a WebSocket's 1001). */
        public synchronized boolean wentAway() {
            return goneAway;
        }

        @Override
        public void goAway() {
            synchronized (this) {
                goneAway = true;
                closed = true;
            }
            inbound.closed();
        }

        /** Closes the connection, as a client closing its socket would. */
        public void close() {
            synchronized (this) {
                closed = true;
            }
            inbound.closed();
        }
    }
}
