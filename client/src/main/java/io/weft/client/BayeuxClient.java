package io.weft.client;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import java.util.List;

/**
 * An asynchronous Bayeux client, for Weft or any Bayeux server (CometD included): handshake, subscribe, publish,
 * receive, disconnect, over WebSocket or HTTP long-polling.
 *
 * <pre>
 *  publish / subscribe / batch ──► outgoing extensions ──► transport (one HTTP POST | one WebSocket frame)
 *  listeners ◄── channel match (exact + wildcards) ◄── replies to their callbacks ◄── incoming extensions ◄── transport
 *  the state machine: handshake ─► connect loop (follows advice: interval, retry | handshake | none) ─► disconnect
 * </pre>
 *
 * <p>Create one with {@link #builder(String)}. Thousands of clients may share one Jetty {@code HttpClient}, one
 * {@code WebSocketClient} and one scheduler: a client owns no thread; it waits on the network and on timers only.
 *
 * <p>Transports are negotiated: the handshake goes over the first transport given to the builder and, if that one
 * cannot connect at all (a WebSocket upgrade refused, say), over the next. The connect loop then uses the first of the
 * client's transports that the server also offers. When the server forgets the session ({@code 402::session_unknown},
 * advice {@code reconnect: handshake}), the client handshakes again and subscribes again to every channel it had.
 * On channels that keep history those subscribes recover what the old session missed, and no message reaches a
 * listener twice (see {@link Recovery}, {@link BayeuxClientBuilder#recovery(boolean)}).
 *
 * <p>Every method is thread-safe and returns at once; outcomes arrive through a {@link Promise} (the one completion
 * type of Weft), completed on a Jetty client thread or a scheduler thread, never under the client's lock. A callback
 * must not block. Reply callbacks {@link Promise#succeed succeed} with the server's successful reply and
 * {@link Promise#fail fail} with a {@link ReplyException} (the server refused) or with the I/O failure that lost the
 * request.
 */
public final class BayeuxClient {
    /** Where a client is in its life. */
    public enum State {
        /** Not handshaken yet, or over: after a disconnect, or when the server advised {@code reconnect: none}. */
        DISCONNECTED,
        /** A handshake is in flight or waits to be retried. */
        HANDSHAKING,
        /** Handshaken; the first {@code /meta/connect} is in flight. */
        CONNECTING,
        /** The last {@code /meta/connect} succeeded. */
        CONNECTED,
        /** The last {@code /meta/connect} failed; another is being retried with the session kept. */
        UNCONNECTED,
        /** A {@code /meta/disconnect} is in flight. */
        DISCONNECTING
    }

    private final String url;
    private final CookieJar cookies;
    private final Listeners listeners = new Listeners();
    private final Listeners subscribers = new Listeners();
    private final Wire wire;
    private final ClientSession session;

    BayeuxClient(BayeuxClientBuilder builder, CookieJar cookies, List<ClientTransport> transports,
            List<ClientExtension> extensions) {
        this.url = builder.url();
        this.cookies = cookies;
        this.wire = new Wire(this, List.copyOf(extensions), builder.trafficListeners(), builder.scheduler(), listeners,
                subscribers);
        this.session = new ClientSession(builder, transports, subscribers, wire);
    }

    /** A builder for clients of the Bayeux server at {@code url} ({@code http://host:port/cometd}). */
    public static BayeuxClientBuilder builder(String url) {
        return new BayeuxClientBuilder(url);
    }

    /** The receiver the builder hands to this client's transports (they are created before the client). */
    ClientTransport.Receiver receiver() {
        return wire;
    }

    public String getUrl() {
        return url;
    }

    /** The clientId the server gave at the last handshake, or null before one (or after a disconnect). */
    public String getId() {
        return session.clientId();
    }

    public State getState() {
        return session.state();
    }

    /** The connection type in use ({@code websocket}, {@code long-polling}), or null before a handshake was tried. */
    public String getTransportName() {
        return session.transportName();
    }

    /** The value of the cookie named {@code name} this client holds (such as {@code BAYEUX_BROWSER}), or null. */
    public String getCookie(String name) {
        return cookies.value(name);
    }

    // ---------------------------------------------------------------------------------------------- handshake

    /** As {@link #handshake(Promise)}, ignoring the outcome. */
    public void handshake() {
        handshake(Promise.noop());
    }

    /**
     * Starts the session. {@code promise} completes with the first outcome: the successful handshake reply, or the
     * first failure (the client keeps retrying after a failure unless the server advised {@code reconnect: none};
     * listeners on {@code /meta/handshake} see every attempt).
     *
     * @throws IllegalStateException if the client is not {@link State#DISCONNECTED}
     */
    public void handshake(Promise<Message> promise) {
        session.handshake(promise);
    }

    // ------------------------------------------------------------------------------------------------ sending

    /** As {@link #publish(String, Object, Promise)}, ignoring the outcome. */
    public void publish(String channel, Object data) {
        publish(channel, data, Promise.noop());
    }

    /**
     * Publishes {@code data} (a JSON value: maps, lists, strings, numbers, booleans, null) to {@code channel}. Before
     * the handshake completes, the message waits for it.
     *
     * @throws IllegalArgumentException if {@code channel} is not a channel one may publish to
     */
    public void publish(String channel, Object data, Promise<Message> promise) {
        ChannelId id = ChannelId.of(channel);
        if (id.isMeta() || id.isWild()) {
            throw new IllegalArgumentException("cannot publish to " + channel);
        }
        Message.Mutable message = Messages.of(channel);
        message.setData(data);
        message.setId(session.nextId());
        session.enqueue(new Wire.Outgoing(message, userHandler(promise)));
    }

    /**
     * Subscribes {@code listener} to {@code channel} (wildcards allowed). The listener receives the channel's messages
     * from now on, and keeps receiving them across re-handshakes; it is removed again if the server refuses.
     *
     * @throws IllegalArgumentException if {@code channel} is not valid or is a meta channel
     */
    public void subscribe(String channel, MessageListener listener, Promise<Message> promise) {
        ChannelId id = ChannelId.of(channel);
        if (id.isMeta()) {
            throw new IllegalArgumentException("cannot subscribe to " + channel + ": use addListener");
        }
        subscribers.add(channel, listener);
        Promise<Message> handler = Promise.from(reply -> {
            if (!reply.isSuccessful()) {
                subscribers.remove(channel, listener);
            }
            userHandler(promise).succeed(reply);
        }, failure -> {
            subscribers.remove(channel, listener);
            Wire.complete(promise, failure);
        });
        session.enqueue(new Wire.Outgoing(session.subscribeMessage(channel), handler));
    }

    public void subscribe(String channel, MessageListener listener) {
        subscribe(channel, listener, Promise.noop());
    }

    /**
     * Removes {@code listener} from {@code channel}. The server is told only when it was the channel's last listener;
     * otherwise {@code promise} succeeds at once with null.
     */
    public void unsubscribe(String channel, MessageListener listener, Promise<Message> promise) {
        if (!subscribers.remove(channel, listener)) {
            Wire.complete(promise, (Message) null);
            return;
        }
        Message.Mutable message = Messages.of("/meta/unsubscribe");
        message.put(Message.SUBSCRIPTION, channel);
        message.setId(session.nextId());
        session.enqueue(new Wire.Outgoing(message, userHandler(promise)));
    }

    /**
     * Adds a listener that is not a subscription: it sees the replies on a meta channel ({@code /meta/handshake},
     * {@code /meta/connect}, {@code /meta/**}) or the messages of channels this client subscribed to otherwise.
     */
    public void addListener(String channel, MessageListener listener) {
        ChannelId.of(channel);
        listeners.add(channel, listener);
    }

    public void removeListener(String channel, MessageListener listener) {
        listeners.remove(channel, listener);
    }

    /** Runs {@code work} as a batch: what it publishes and subscribes leaves in one request or frame. */
    public void batch(Runnable work) {
        startBatch();
        try {
            work.run();
        } finally {
            endBatch();
        }
    }

    public void startBatch() {
        session.startBatch();
    }

    /** Ends a batch; the outermost sends what was held as one batch. */
    public void endBatch() {
        session.endBatch();
    }

    // ---------------------------------------------------------------------------------------------- disconnect

    public void disconnect() {
        disconnect(Promise.noop());
    }

    /**
     * Ends the session: sends {@code /meta/disconnect}, then closes this client's connections. {@code promise} succeeds
     * with the server's reply, or with null when there was no session to end (or the reply was lost).
     */
    public void disconnect(Promise<Message> promise) {
        session.disconnect(promise);
    }

    /** A meta message the server sent unasked; see {@link ClientSession#onUnsolicited}. */
    void onUnsolicited(Message message) {
        session.onUnsolicited(message);
    }

    /** Turns a reply into the user's outcome: success for a successful reply, {@link ReplyException} otherwise. */
    private static Promise<Message> userHandler(Promise<Message> promise) {
        return Promise.from(reply -> {
            if (reply.isSuccessful()) {
                Wire.complete(promise, reply);
            } else {
                Wire.complete(promise, new ReplyException(reply));
            }
        }, failure -> Wire.complete(promise, failure));
    }

    @Override
    public String toString() {
        return "BayeuxClient[" + url + ", " + session.state() + ", " + session.clientId() + "]";
    }
}
