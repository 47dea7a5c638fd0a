package io.weft.server.spi;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.ClientRequest;
import java.net.InetAddress;
import java.util.List;

/**
 * A transport's connection as the engine sees it: implemented by each transport, called by the engine.
 *
 * <p>Two shapes exist. A <em>persistent</em> connection (a WebSocket) carries many batches in and many writes out;
 * the engine pushes replies and queued messages through {@link #send} whenever it has them. A <em>one-shot</em>
 * connection (one HTTP request) receives one batch and gets exactly one {@link #send}, immediately or, when its
 * {@code /meta/connect} is held, later.
 *
 * <p>The engine never calls {@link #send} again before the previous call's promise has completed, so a transport has
 * at most one write in flight per connection. {@code send} must not block: it starts the write and completes
 * {@code written} from whatever thread the write finishes on.
 */
public interface Connection {
    /** The Bayeux connection type: {@code websocket}, {@code long-polling}, {@code callback-polling}, … */
    String type();

    /** Whether this connection carries many batches and accepts pushed messages (a WebSocket). */
    boolean isPersistent();

    /**
     * The value of the browser cookie sent with this connection ({@code BAYEUX_BROWSER}), or null when the client sent
     * none. A session created or resumed with a browser id is bound to it: requests without it are refused, but for
     * the one persistent connection of a first visit's race (the socket a browser opened, without a cookie, while it
     * handshook over HTTP: see docs/protocol.md, "Browsers"). A transport never passes a cookie its own response set:
     * setting a cookie is not presenting it.
     */
    String browserId();

    /**
     * The address of the client at the other end, or null when there is none (an in-JVM connection). Sessions are
     * counted per address ({@link io.weft.server.api.ServerOptions#maxSessionsPerAddress()}).
     */
    default InetAddress remoteAddress() {
        return null;
    }

    /**
     * Whether this one-shot connection's request shares its network connection with the browser's other requests
     * without waiting behind them (HTTP/2, HTTP/3): a held {@code /meta/connect} then costs the browser no connection
     * of its own, so it takes no place in the browser's {@code maxSessionsPerBrowser} held polls (the rule exists for
     * HTTP/1.1's few connections per host) and is never answered with {@code multiple-clients} advice. False by
     * default: HTTP/1.1, and any connection that cannot tell.
     */
    default boolean multiplexed() {
        return false;
    }

    /**
     * What the HTTP request behind this connection carried (a one-shot connection's request, a WebSocket's upgrade
     * request), copied while it was live ({@link RequestSnapshot}); a session handshaken here keeps it
     * ({@link io.weft.server.api.ServerSession#getRequest()}). Null when there is none (an in-JVM connection).
     */
    default ClientRequest request() {
        return null;
    }

    /**
     * The engine gives up on this persistent connection because its client does not read what it asks for (more than
     * {@code maxPendingFrames} answers wait to be written): close it, telling the client why ({@code reason}, one
     * line), as the transport does for its own bounds (a WebSocket closes with 1008). The engine has counted it and
     * sends nothing more. One-shot connections are never given up on this way: the default does nothing.
     */
    default void close(String reason) {
    }

    /**
     * The server is draining ({@link io.weft.server.api.BayeuxServer#drain}) and this connection carries nothing more
     * for it: close it so that the client's next request or socket goes through its load balancer again, to another
     * node. A one-shot connection is told before its {@link #send}: its response asks the client to close the network
     * connection (HTTP/1.1 {@code Connection: close}; over HTTP/2, whose connection a browser shares with its other
     * requests, nothing). A persistent connection is told once what it was last given is written: a WebSocket closes
     * with 1001 (going away), a stream ends. The engine sends nothing after it. The default does nothing.
     */
    default void goAway() {
    }

    /**
     * Writes messages (replies and deliveries) to the client, as one JSON array.
     *
     * @param messages the messages; the list must not be kept after {@code written} completes. At least one, but for
     *     the one-shot answer to a batch whose only reply went elsewhere (an {@code eventsource} client's
     *     {@code /meta/connect}, answered on its stream): that answer is an empty array
     * @param written completed when the bytes are written, or failed when they cannot be (the client went away)
     */
    void send(List<Message> messages, Promise<Void> written);
}
