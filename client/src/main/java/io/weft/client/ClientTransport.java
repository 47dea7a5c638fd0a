package io.weft.client;

import io.weft.bayeux.Message;
import java.util.List;

/**
 * How one {@link BayeuxClient} moves batches to and from the server: one instance per client and connection type,
 * over an HttpClient or WebSocketClient that all clients share. Transports move bytes only; every protocol decision
 * (what to send, retries, advice) is the client's.
 *
 * <p>{@link #send} never blocks. Its outcome reaches the client's {@link Receiver}, on a Jetty thread.
 */
interface ClientTransport {
    /** The Bayeux connection type: {@code websocket}, {@code long-polling}. */
    String name();

    /**
     * Whether replies arrive separately from requests (a WebSocket): the client then times out each reply itself.
     * Otherwise every request has its response, which carries the replies, and the transport times out the exchange.
     */
    boolean isPersistent();

    /**
     * Sends one batch. {@code timeoutMillis} bounds the whole exchange for a non-persistent transport: a held
     * {@code /meta/connect} needs the server's timeout plus the network delay.
     */
    void send(List<Message.Mutable> batch, long timeoutMillis);

    /** Aborts what is in flight (each failed batch is reported) and closes any connection. The transport may be used again. */
    void close();

    /** Where a transport reports what happened; implemented by the client. */
    interface Receiver {
        /**
         * Messages arrived. {@code request} is the batch whose response carried them (a non-persistent transport), or
         * null for a frame pushed on a persistent connection.
         */
        void onMessages(ClientTransport transport, List<Message.Mutable> messages, List<Message.Mutable> request);

        /** {@code batch} was not sent, or its response was lost. */
        void onFailure(ClientTransport transport, List<Message.Mutable> batch, Throwable cause);

        /** A persistent connection ended: replies still expected on it will not come. */
        void onClosed(ClientTransport transport, Throwable cause);
    }

    /** What a transport of one client needs to know. */
    record Context(String url, CookieJar cookies, Receiver receiver, int maxMessageSize) {
    }
}
