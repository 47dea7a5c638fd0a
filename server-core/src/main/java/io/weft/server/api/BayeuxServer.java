package io.weft.server.api;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.server.internal.Bootstrap;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A Bayeux server: channels, sessions, and the engine that moves messages between them. Transports (long-polling,
 * WebSocket) are mounted on it; applications subscribe, publish and watch through it.
 *
 * <pre>
 *  transport (HTTP body / WebSocket frame)
 *    -&gt; JSON decode (one pass)                       Codec
 *    -&gt; /meta/handshake|connect|subscribe|           one handler per meta channel
 *       unsubscribe|disconnect, or publish
 *    -&gt; security policy                              SecurityPolicy
 *    -&gt; channel tree: exact channel + wildcards      ServerChannel (O(depth) lookup)
 *    -&gt; each subscriber session's bounded queue      ServerSession
 *    -&gt; the session's transport is woken: a held long-poll is answered,
 *       a WebSocket writes what is queued in one frame
 *    -&gt; JSON encode, once per message, the same bytes for every subscriber
 * </pre>
 *
 * <p>Create one with {@link #create(ServerOptions)}; {@link #close()} it when done, or {@link #drain} it to move its
 * clients to other nodes first. Thread-safe.
 */
public interface BayeuxServer extends AutoCloseable {
    /** A server with its own scheduler thread. */
    static BayeuxServer create(ServerOptions options) {
        return Bootstrap.server(options);
    }

    /** A server driven by {@code scheduler}, which the caller owns and closes (tests pass a manual one). */
    static BayeuxServer create(ServerOptions options, Scheduler scheduler) {
        return Bootstrap.server(options, Objects.requireNonNull(scheduler, "scheduler"));
    }

    ServerOptions getOptions();

    /** The channel, or null if it does not exist (nobody subscribed and nobody created it). */
    ServerChannel getChannel(String channelId);

    /** Every channel in the tree now (the ancestors a subscription created included), a copy. */
    List<ServerChannel> getChannels();

    /** The channel, created if absent. @throws IllegalArgumentException if {@code channelId} is not valid */
    default ServerChannel createChannelIfAbsent(String channelId) {
        return createChannelIfAbsent(channelId, channel -> { });
    }

    /**
     * The channel, created if absent; a channel created by this call is passed to {@code initializer} (to make it
     * persistent, add authorizers or listeners) before channel listeners hear of it and before clients can use it.
     */
    ServerChannel createChannelIfAbsent(String channelId, Consumer<ServerChannel> initializer);

    /** The live session with this clientId, or null. */
    ServerSession getSession(String clientId);

    /** The live sessions, a snapshot. */
    Collection<ServerSession> getSessions();

    SecurityPolicy getSecurityPolicy();

    void setSecurityPolicy(SecurityPolicy policy);

    /** Adds a server-wide extension; see {@link Extension} for the order extensions run in. */
    void addExtension(Extension extension);

    void removeExtension(Extension extension);

    List<Extension> getExtensions();

    void addListener(Listener listener);

    void removeListener(Listener listener);

    /**
     * A client inside this JVM, for server-side services: it handshakes, subscribes and publishes like a remote client,
     * without a network. {@code name} appears in logs.
     */
    LocalSession newLocalSession(String name);

    /**
     * Binds a request/response {@link Service} to a {@code /service/**} channel (created persistent).
     *
     * @throws IllegalArgumentException if {@code channelId} is not a valid non-wildcard {@code /service/} channel, or
     *     already has a service
     */
    ServerChannel addService(String channelId, Service service);

    /**
     * How many times each {@link Limit} has refused something since the server started: every limit, zero included.
     * A snapshot; cheap enough to poll.
     */
    Map<Limit, Long> getRefusals();

    /**
     * What this server is doing (sessions by connection type, held connects, channels, subscriptions) and has done
     * since it started (handshakes, messages received and delivered, errors, slow consumers, refusals): see
     * {@link ServerStats}. A snapshot, cheap enough to take every few seconds.
     */
    ServerStats getStats();

    /** Whether {@link #close()} has been called: the server takes no more handshakes. */
    boolean isClosed();

    /**
     * Empties this node without a reconnect storm, for a restart or a deploy behind a load balancer, then closes it.
     * At once: {@link #isDraining()} turns true (so {@code /health} answers 503 and the balancer sends no new clients)
     * and client handshakes are refused with {@code 503::server_draining} and advice {@code reconnect: handshake}
     * (counted in {@link ServerStats#handshakesRefused()}). Each client session gets a moment of its own, spread at
     * random over {@code window}, at which its held {@code /meta/connect}, or its next one, is answered with
     * {@code 503::server_draining} and advice {@code reconnect: handshake}; the session then ends
     * ({@link EndReason#DRAINED}, counted in {@link ServerStats#sessionsDrained()}) and its connection is closed behind
     * the answer (a WebSocket with 1001, a long-poll response with {@code Connection: close}), so that the client comes
     * back through the balancer, to another node. At the end of the window the server {@link #close() closes}.
     * Local sessions (server code) are not drained; they end with the close.
     *
     * <p>Idempotent: a second call returns the first one's completion and changes nothing, whatever its window; after
     * {@link #close()}, nothing happens. Any thread; returns at once.
     *
     * @param window how long the sessions' moments are spread over, and when the server closes; zero drains every
     *     session now and closes
     * @return completes when the server has closed (at the end of the window, or sooner if {@link #close()} is called)
     * @throws IllegalArgumentException if {@code window} is negative
     */
    CompletionStage<Void> drain(Duration window);

    /** Whether {@link #drain} has been called (and the server was not closed before): it takes no more handshakes. */
    boolean isDraining();


    /**
     * Closes the server: every held {@code /meta/connect} is answered with advice {@code reconnect: handshake} (so
     * clients go to another node, or come back when this one is up again), every session ends, new handshakes are
     * refused with {@code 503::server_closing}, and the server's own timer thread stops. Idempotent.
     */
    @Override
    void close();

    /** Marker for the listeners a server accepts. */
    interface Listener {
    }

    /**
     * Told when sessions begin and end. Called on the thread that caused it (a handshake's, a disconnect's, the
     * scheduler's for an expiry); must not block. A listener that throws is logged once and skipped.
     */
    interface SessionListener extends Listener {
        /** A session was created by {@code handshake} (null for a local session); it is live. */
        default void sessionAdded(ServerSession session, Message handshake) {
        }

        /** A session ended; {@code reason} tells a timeout from a disconnect. */
        default void sessionRemoved(ServerSession session, EndReason reason) {
        }
    }

    /** Told when channels are created and removed (swept), on the thread that did it; must not block. */
    interface ChannelListener extends Listener {
        default void channelAdded(ServerChannel channel) {
        }

        default void channelRemoved(ChannelId channel) {
        }
    }

    /** Told of every subscription, on any channel, on the thread that made it; must not block. */
    interface SubscriptionListener extends Listener {
        /** @param message the {@code /meta/subscribe} message, or null when server code subscribed */
        default void subscribed(ServerSession session, ServerChannel channel, Message message) {
        }

        /** @param message the {@code /meta/unsubscribe} message, or null (server code, or the session ended) */
        default void unsubscribed(ServerSession session, ServerChannel channel, Message message) {
        }
    }
}
