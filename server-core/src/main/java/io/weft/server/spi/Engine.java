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

    /**
     * Starts the engine's side of a server-to-client stream for the session {@code clientId} (the {@code eventsource}
     * connection type: an HTTP response that stays open and carries many {@link Connection#send} writes). The client's
     * uplink, {@code /meta/connect} among it, comes by {@link #open} on other connections; a {@code /meta/connect}
     * naming {@code connectionType: "eventsource"} is then held and answered on this stream, and the session's
     * deliveries are pushed on it as they come.
     *
     * <p>A session has at most one stream: a newer one replaces it, and the older is {@link Connection#close closed}.
     * If no live session of that id may be reached by this connection's browser, the engine sends one
     * {@code /meta/connect} reply with {@code 402::session_unknown} and closes the connection. The stream is closed
     * too when its session ends, once what was sent to it has been written.
     *
     * @param lastEventId the {@code Last-Event-ID} the client resumed with, or null: under the acknowledgement
     *     extension, event ids are acknowledgement batch ids, so what the client received up to it is acknowledged
     *     and anything sent after it is sent again
     * @return the stream's inbound side: call {@link Inbound#closed()} when the client goes away (it receives no
     *     batches)
     */
    Inbound openStream(Connection connection, String clientId, String lastEventId);
}
