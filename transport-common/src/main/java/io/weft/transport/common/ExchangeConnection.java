package io.weft.transport.common;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.ClientRequest;
import io.weft.server.spi.Connection;
import io.weft.server.spi.Engine;
import io.weft.server.spi.Inbound;
import io.weft.server.spi.QuietLog;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One HTTP exchange as the engine sees it: a one-shot {@link Connection} that answers with exactly one response,
 * now or when its held {@code /meta/connect} ends, as a JSON array ({@code long-polling}) or a JSONP call
 * ({@code callback-polling}).
 */
final class ExchangeConnection implements Connection {
    private static final QuietLog UNENCODABLE = new QuietLog(ExchangeConnection.class, "responses that could not be encoded");
    static final String JSON_CONTENT_TYPE = "application/json;charset=UTF-8";
    private static final String CONNECTION = "Connection";

    private final HttpExchange exchange;
    private final Engine engine;
    private final String type;
    private final String callback;
    private final String browserId;
    private final AtomicBoolean ended = new AtomicBoolean();
    /** The server is draining: the response asks the client to close its connection ({@link #goAway()}). */
    private volatile boolean goingAway;
    private volatile Inbound inbound;

    /**
     * @param callback the JSONP callback name for {@code callback-polling}, null for {@code long-polling}
     * @param browserId the browser cookie's value the request carried, or null
     */
    ExchangeConnection(HttpExchange exchange, Engine engine, String type, String callback, String browserId) {
        this.exchange = exchange;
        this.engine = engine;
        this.type = type;
        this.callback = callback;
        this.browserId = browserId;
    }

    void attach(Inbound inbound) {
        this.inbound = inbound;
    }

    /** Whether the engine has not answered yet (and the client has not gone). */
    boolean isWaiting() {
        return !ended.get();
    }

    @Override
    public String type() {
        return type;
    }

    @Override
    public boolean isPersistent() {
        return false;
    }

    @Override
    public String browserId() {
        return browserId;
    }

    @Override
    public boolean multiplexed() {
        return exchange.multiplexed();
    }

    @Override
    public InetAddress remoteAddress() {
        return exchange.remoteAddress();
    }

    /** Copied when asked (only a handshake asks), while the engine handles the request. */
    @Override
    public ClientRequest request() {
        return exchange.snapshot();
    }

    /**
     * The server is draining: the response, not sent yet, carries {@code Connection: close}, so that the client's next
     * request opens a new connection, through its load balancer, to another node. Not over HTTP/2, where the browser's
     * other requests share the connection (and the header is not allowed).
     */
    @Override
    public void goAway() {
        goingAway = true;
    }

    @Override
    public void send(List<Message> messages, Promise<Void> written) {
        if (!ended.compareAndSet(false, true)) {
            written.fail(new IllegalStateException("the client has gone"));
            return;
        }
        if (goingAway && !exchange.multiplexed()) {
            exchange.addHeader(CONNECTION, "close");
        }
        byte[] json;
        try {
            json = engine.codec().encode(messages);
        } catch (Throwable x) {
            // Application data that cannot be written (a bug): the client still gets a Bayeux answer it understands.
            UNENCODABLE.log("could not encode a response on " + type + "; answered 500::server_error: {}",
                    messages.size() + " messages", x);
            json = engine.codec().encode(failed(messages));
        }
        byte[] body = callback == null ? json : Jsonp.wrap(callback, json);
        engine.written(type, body.length);
        exchange.respond(200, callback == null ? JSON_CONTENT_TYPE : Jsonp.CONTENT_TYPE, body, written);
    }

    /** Each reply among {@code messages} as failed, without what could not be encoded; deliveries are dropped. */
    private static List<Message> failed(List<Message> messages) {
        List<Message> replies = new ArrayList<>(messages.size());
        for (Message message : messages) {
            if (message.containsKey(Message.SUCCESSFUL)) {
                Message.Mutable reply = Message.Mutable.create().setChannel(message.getChannel());
                if (message.get(Message.ID) instanceof String || message.get(Message.ID) instanceof Number) {
                    reply.put(Message.ID, message.get(Message.ID));
                }
                reply.setSuccessful(false).put(Message.ERROR, BayeuxError.SERVER_ERROR.toString());
                replies.add(reply);
            }
        }
        return replies;
    }

    /** The client went away before its response was written: drop the exchange and tell the engine. */
    void clientGone(Throwable cause) {
        boolean waiting = ended.compareAndSet(false, true);
        // The engine first: once the exchange is aborted the container counts the request as done, and a delivery
        // must by then find the session without this connection, so that it stays queued.
        Inbound attached = inbound;
        if (attached != null) {
            attached.closed();
        }
        if (waiting) {
            exchange.abort(cause);
        }
    }

    @Override
    public String toString() {
        return type + "@" + Integer.toHexString(System.identityHashCode(this));
    }
}
