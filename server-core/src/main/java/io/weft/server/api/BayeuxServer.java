package io.weft.server.api;

import io.weft.server.internal.BayeuxServerImpl;
import io.weft.server.internal.time.ExecutorScheduler;
import io.weft.server.spi.Engine;
import io.weft.server.spi.Scheduler;
import java.util.Collection;
import java.util.Objects;

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
 * <p>Create one with {@link #create(ServerOptions)}; {@link #close()} it when done. Thread-safe.
 */
public interface BayeuxServer extends AutoCloseable {
    /** A server with its own scheduler thread. */
    static BayeuxServer create(ServerOptions options) {
        return new BayeuxServerImpl(options, new ExecutorScheduler("weft-scheduler"), true);
    }

    /** A server driven by {@code scheduler}, which the caller owns and closes (tests pass a manual one). */
    static BayeuxServer create(ServerOptions options, Scheduler scheduler) {
        return new BayeuxServerImpl(options, Objects.requireNonNull(scheduler, "scheduler"), false);
    }

    ServerOptions getOptions();

    /** The channel, or null if it does not exist (nobody subscribed and nobody created it). */
    ServerChannel getChannel(String channelId);

    /** The channel, created if absent. @throws IllegalArgumentException if {@code channelId} is not valid */
    ServerChannel createChannelIfAbsent(String channelId);

    /** The live session with this clientId, or null. */
    ServerSession getSession(String clientId);

    /** The live sessions, a snapshot. */
    Collection<ServerSession> getSessions();

    SecurityPolicy getSecurityPolicy();

    void setSecurityPolicy(SecurityPolicy policy);

    /** The engine, for transports: see {@link Engine}. Applications do not need it. */
    Engine engine();

    /** Ends every session (without telling the clients) and stops the server's timers. Idempotent. */
    @Override
    void close();
}
