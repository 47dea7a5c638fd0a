package io.weft.transport.common;

import io.weft.bayeux.Promise;
import io.weft.server.api.ClientRequest;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;

/**
 * One HTTP request and its response, as {@link PollingTransport} sees them: the whole surface an adapter (the Jetty
 * core {@code LongPollingHandler}, the {@code LongPollingServlet}, transport-netty's exchange) implements. Adapters translate calls and nothing
 * else; every decision (methods, parameters, limits, cookies, CORS, status codes) is the transport's.
 *
 * <p>The transport calls {@link #respond} or {@link #abort} exactly once, from any thread; response headers are set
 * before that. Callbacks ({@link BodySink}, the {@code gone} listener) run on container threads and must not block.
 */
public interface HttpExchange {
    /** The request method, upper case. */
    String method();

    /** The first value of a request header, or null. */
    String header(String name);

    /** Every value of a request header, in order; empty if none. */
    List<String> headers(String name);

    /** The raw (still percent-encoded) query string, or null. */
    String query();

    /**
     * The request's path below the mount, decoded: empty for the mount itself, else starting with {@code /}
     * ({@code /abc} for a request to {@code /cometd/abc} on a mount at {@code /cometd}).
     */
    String pathInMount();

    /** {@code scheme://host[:port]} of this request as the server sees it, the default port left out. */
    String serverOrigin();

    /**
     * Whether the client reached the server over HTTPS: the connection's own TLS, or the scheme a trusted proxy
     * forwarded (where the container is told to trust it).
     */
    boolean isSecure();

    /** Whether the request came over HTTP/2 or later, where a browser's requests share one connection. */
    default boolean multiplexed() {
        return false;
    }

    /**
     * The address of the client: the peer of the connection, or, where the container is told to trust the proxy that
     * peer is, the address the proxy forwarded; null if unknown.
     */
    InetAddress remoteAddress();

    /** A copy of what the request carried, for the session a handshake creates; while the request is live. */
    ClientRequest snapshot();

    /** The declared body length ({@code Content-Length}), or -1 if unknown. */
    long contentLength();

    /**
     * Reads the body without blocking, chunk by chunk, into {@code sink}, until the sink refuses more, the body ends,
     * or reading fails. A body not read whole within {@code deadlineMillis} fails with a {@link
     * java.util.concurrent.TimeoutException} (a client that trickles a body must not hold the server's buffer and
     * connection for ever). Called at most once.
     */
    void readBody(BodySink sink, long deadlineMillis);

    /**
     * Calls {@code gone} (once, on a container thread, with the cause) if the client goes away before the response
     * is complete, as far as the container can tell. Called once, before the request is handed to the engine.
     */
    void onClientGone(Consumer<Throwable> gone);

    /**
     * The engine has taken the request without answering it yet (a held {@code /meta/connect}), and will answer
     * within {@code millis}. Until {@link #respond} or {@link #abort}, the container's idle timeout must not end the
     * exchange, and a client that goes away must be noticed even where the container does not tell (HTTP/1 on Jetty:
     * see transport-longpoll's {@code ParkedConnectionWatch}). May race with {@link #respond} from another thread; at most once.
     */
    void parked(long millis);

    /**
     * The exchange is a stream from now on ({@link #write}): it has no deadline of its own, and, as for {@link
     * #parked}, the container's idle timeout must not end it while no write is under way, and a client that goes away
     * must be noticed where the adapter can. At most once, before the first {@link #write}.
     */
    void streaming();

    /** Adds a response header. */
    void addHeader(String name, String value);

    /**
     * Sends the response and ends the exchange; {@code written} completes when the bytes are written or fails when
     * they cannot be. Must not block. Only the first {@code respond} or {@code abort} counts: a later one fails
     * {@code written} and changes nothing, so a transport that must answer whatever happens can always try.
     */
    void respond(int status, String contentType, byte[] body, Promise<Void> written);

    /** Ends the exchange without a response: the client has gone. */
    void abort(Throwable cause);

    /** Whether this adapter can stream a response ({@link #write}); where it cannot, eventsource is not offered. */
    default boolean streams() {
        return false;
    }

    /**
     * Writes part of a streamed response: the first write sends status 200 and the headers added so far, without a
     * length; {@code last} ends the exchange. One write at a time: the next starts only once {@code written} has
     * completed. Must not block. Call {@link #streaming} first. A write the client does not take within the
     * adapter's bound (Jetty's idle timeout; the Servlet adapter's stall bound) fails, which ends the exchange.
     */
    default void write(byte[] chunk, boolean last, Promise<Void> written) {
        written.fail(new UnsupportedOperationException("this adapter does not stream responses"));
    }

    /** Runs {@code task} once, in {@code millis}, on the container's scheduler; returns what cancels it. */
    default Runnable schedule(Runnable task, long millis) {
        throw new UnsupportedOperationException("this adapter does not stream responses");
    }

    /** Receives a request body. Implemented by the transport; called by the adapter on container threads. */
    interface BodySink {
        /**
         * Takes a chunk; its bytes must be copied before returning.
         *
         * @return whether to keep reading; false once the sink has answered the request (the body is too large)
         */
        boolean onData(ByteBuffer chunk);

        /** The body has ended. */
        void onEnd();

        /** Reading failed (the client went away, or the container timed the read out). */
        void onFailure(Throwable failure);
    }
}
