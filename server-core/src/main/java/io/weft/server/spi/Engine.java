package io.weft.server.spi;

import io.weft.bayeux.Codec;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.internal.Bootstrap;

/**
 * What a transport sees of the Bayeux engine: obtained with {@link #of(BayeuxServer)}.
 *
 * <pre>
 * transport                              engine
 *   bytes --codec().decode()--&gt; batch --&gt; open(connection).receive(batch)
 *   connection.send(messages) &lt;--------- replies, held /meta/connect replies, pushed deliveries
 *   bytes &lt;--codec().encode()-- messages
 * </pre>
 *
 * Transports move bytes and nothing else: every protocol decision (holding a {@code /meta/connect}, session
 * binding to a browser, advice) is the engine's. Thread-safe.
 */
public interface Engine {
    /** The engine of {@code server}, for a transport to mount on it; applications do not need it. */
    static Engine of(BayeuxServer server) {
        return Bootstrap.engine(server);
    }

    ServerOptions options();

    Codec codec();

    /**
     * Announces a connection type a mounted transport serves; handshake replies list every announced type in
     * {@code supportedConnectionTypes}, in the order announced.
     */
    void addConnectionType(String type);

    /**
     * Counts a refusal a transport made itself (a body over {@code maxMessageSize}, a socket closed for
     * {@code maxPendingFrames}), so that {@link io.weft.server.api.BayeuxServer#getRefusals()} shows it beside the
     * engine's own. Cheap; any thread.
     */
    void refused(Limit limit);

    /**
     * Counts the bytes a transport encoded to write on a connection of type {@code connectionType} (a response body
     * or a frame's text), for {@link io.weft.server.api.ServerStats#bytesWrittenByConnectionType()}. Cheap; any
     * thread.
     */
    void written(String connectionType, long bytes);

    /** Starts the engine's side of a new connection: a WebSocket that just opened, or one HTTP request. */
    Inbound open(Connection connection);
}
