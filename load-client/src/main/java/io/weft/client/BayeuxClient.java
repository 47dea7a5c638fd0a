package io.weft.client;

import io.weft.server.api.ChannelId;
import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p>Every method is thread-safe and returns at once; outcomes arrive through a {@link Promise} (the one completion
 * type of Weft), completed on a Jetty client thread or a scheduler thread, never under the client's lock. A callback
 * must not block. Reply callbacks {@link Promise#succeed succeed} with the server's successful reply and
 * {@link Promise#fail fail} with a {@link ReplyException} (the server refused) or with the I/O failure that lost the
 * request.
 */
public final class BayeuxClient {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxClient.class);

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
    private final List<ClientTransport> transports;
    private final ScheduledExecutorService scheduler;
    private final long maxNetworkDelay;
    private final long backoffIncrement;
    private final long maxBackoff;
    private final CookieJar cookies;
    private final Listeners listeners = new Listeners();
    private final Listeners subscribers = new Listeners();
    private final Wire wire;
    private final AtomicLong nextId = new AtomicLong();

    private final Object lock = new Object();
    private State state = State.DISCONNECTED;
    private String clientId;
    private boolean handshakenBefore;
    private ClientTransport transport;
    private final Set<ClientTransport> failedTransports = new HashSet<>();
    private final Set<ClientTransport> workedTransports = new HashSet<>();
    private Advice advice = Advice.INITIAL;
    private long backoff;
    private long generation;
    private Future<?> timer;
    private int batchDepth;
    private final List<Wire.Outgoing> batched = new ArrayList<>();
    private final List<Wire.Outgoing> waiting = new ArrayList<>();
    private Promise<Message> handshakePromise;
    private Promise<Message> disconnectPromise;

    BayeuxClient(BayeuxClientBuilder builder, CookieJar cookies, List<ClientTransport> transports,
            List<ClientExtension> extensions) {
        this.url = builder.url();
        this.cookies = cookies;
        this.transports = List.copyOf(transports);
        this.scheduler = builder.scheduler();
        this.maxNetworkDelay = builder.maxNetworkDelay();
        this.backoffIncrement = builder.backoffIncrement();
        this.maxBackoff = builder.maxBackoff();
        this.wire = new Wire(this, List.copyOf(extensions), builder.trafficListeners(), scheduler, listeners,
                subscribers);
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
        synchronized (lock) {
            return clientId;
        }
    }

    public State getState() {
        synchronized (lock) {
            return state;
        }
    }

    /** The connection type in use ({@code websocket}, {@code long-polling}), or null before a handshake was tried. */
    public String getTransportName() {
        synchronized (lock) {
            return transport == null ? null : transport.name();
        }
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
        synchronized (lock) {
            if (state != State.DISCONNECTED) {
                throw new IllegalStateException("cannot handshake: the client is " + state);
            }
            state = State.HANDSHAKING;
            handshakePromise = promise;
            backoff = 0;
        }
        sendHandshake();
    }

    private void sendHandshake() {
        ClientTransport via;
        ClientMessage handshake = ClientMessage.of("/meta/handshake");
        synchronized (lock) {
            if (state != State.HANDSHAKING) {
                return;
            }
            timer = null;
            if (failedTransports.containsAll(transports)) {
                failedTransports.clear();
            }
            List<String> types = new ArrayList<>();
            for (ClientTransport candidate : transports) {
                if (!failedTransports.contains(candidate)) {
                    types.add(candidate.name());
                }
            }
            via = transports.stream().filter(t -> !failedTransports.contains(t)).findFirst().orElseThrow();
            transport = via;
            handshake.put(Message.VERSION, "1.0");
            handshake.put(Message.MINIMUM_VERSION, "1.0");
            handshake.put(Message.SUPPORTED_CONNECTION_TYPES, types);
            handshake.setId(nextId());
        }
        Promise<Message> handler = Promise.from(this::onHandshakeReply, failure -> onHandshakeFailure(via, failure));
        wire.send(via, List.of(new Wire.Outgoing(handshake, handler)), maxNetworkDelay);
    }

    private void onHandshakeReply(Message reply) {
        if (!reply.isSuccessful()) {
            String reconnect = advice().reconnectOf(reply.getAdvice());
            handshakeFailed(new ReplyException(reply), Advice.NONE.equals(reconnect), interval(reply));
            return;
        }
        ClientTransport previous;
        ClientTransport chosen;
        List<String> resubscribe = List.of();
        List<Wire.Outgoing> flush;
        ClientMessage connect;
        long connectGeneration;
        long connectTimeout;
        Promise<Message> promise;
        Runnable aftermath = null;
        synchronized (lock) {
            if (state != State.HANDSHAKING) {
                return;
            }
            workedTransports.add(transport);
            chosen = negotiate(reply.get(Message.SUPPORTED_CONNECTION_TYPES));
            if (chosen == null) {
                IOException noCommonType = new IOException("no common connection type: the server offers "
                        + reply.get(Message.SUPPORTED_CONNECTION_TYPES));
                aftermath = terminate(noCommonType, null);
            }
        }
        if (aftermath != null) {
            aftermath.run();
            return;
        }
        synchronized (lock) {
            if (state != State.HANDSHAKING) {
                return;
            }
            previous = transport;
            transport = chosen;
            clientId = reply.getClientId();
            advice = new Advice(Advice.RETRY, advice.interval(), advice.timeout(), advice.maxInterval())
                    .merge(reply.getAdvice());
            if (handshakenBefore) {
                resubscribe = new ArrayList<>(subscribers.channels());
            }
            handshakenBefore = true;
            state = State.CONNECTING;
            backoff = 0;
            generation++;
            connect = connectMessage(true);
            connectGeneration = generation;
            connectTimeout = advice.timeout() + maxNetworkDelay;
            flush = takeWaiting();
            promise = handshakePromise;
            handshakePromise = null;
        }
        if (previous != chosen) {
            previous.close();
        }
        sendConnect(chosen, connect, connectGeneration, connectTimeout);
        if (!resubscribe.isEmpty()) {
            List<Wire.Outgoing> subscribes = new ArrayList<>();
            for (String channel : resubscribe) {
                ClientMessage subscribe = subscribeMessage(channel);
                subscribe.setClientId(connect.getClientId());
                subscribes.add(new Wire.Outgoing(subscribe, Promise.from(
                        r -> logRefusedResubscribe(channel, r),
                        x -> LOG.debug("Resubscribing to {} failed: {}", channel, x.toString()))));
            }
            send(chosen, subscribes);
        }
        if (!flush.isEmpty()) {
            send(chosen, flush);
        }
        if (promise != null) {
            Wire.complete(promise, reply);
        }
    }

    private ClientTransport negotiate(Object offered) {
        if (!(offered instanceof List<?> types)) {
            return transport;
        }
        for (ClientTransport candidate : transports) {
            if (!failedTransports.contains(candidate) && types.contains(candidate.name())) {
                return candidate;
            }
        }
        return null;
    }

    private void onHandshakeFailure(ClientTransport via, Throwable failure) {
        boolean fallBack;
        synchronized (lock) {
            if (state != State.HANDSHAKING) {
                return;
            }
            // A transport that never worked for this client (a refused upgrade) gives way to the next one at once.
            fallBack = !workedTransports.contains(via) && transports.stream()
                    .anyMatch(t -> t != via && !failedTransports.contains(t));
            if (fallBack) {
                failedTransports.add(via);
                LOG.debug("{} failed before working ({}); falling back", via.name(), failure.toString());
            }
        }
        if (fallBack) {
            sendHandshake();
        } else {
            handshakeFailed(failure, false, advice.interval());
        }
    }

    /** A handshake attempt failed: give up if advised to, else retry later. The first failure completes the promise. */
    private void handshakeFailed(Throwable failure, boolean giveUp, long interval) {
        Promise<Message> promise;
        Runnable next;
        synchronized (lock) {
            if (state != State.HANDSHAKING) {
                return;
            }
            promise = handshakePromise;
            handshakePromise = null;
            next = giveUp ? terminate(failure, null) : schedule(this::sendHandshake, interval + nextBackoff());
        }
        if (promise != null) {
            Wire.complete(promise, failure);
        }
        run(next);
    }

    // ------------------------------------------------------------------------------------------- connect loop

    private ClientMessage connectMessage(boolean first) {
        ClientMessage connect = ClientMessage.of("/meta/connect");
        connect.setClientId(clientId);
        connect.put(Message.CONNECTION_TYPE, transport.name());
        if (first) {
            // The first connect after a handshake returns at once, so the client learns it is connected.
            connect.getAdvice(true).put("timeout", 0);
        }
        connect.setId(nextId());
        return connect;
    }

    private void sendConnect(ClientTransport via, ClientMessage connect, long expected, long timeout) {
        Promise<Message> handler = Promise.from(r -> onConnectReply(expected, r), x -> onConnectFailure(expected, x));
        wire.send(via, List.of(new Wire.Outgoing(connect, handler)), timeout);
    }

    private void nextConnect() {
        ClientTransport via;
        ClientMessage connect;
        long expected;
        long timeout;
        synchronized (lock) {
            timer = null;
            if (!isSessionActive()) {
                return;
            }
            via = transport;
            connect = connectMessage(false);
            expected = generation;
            timeout = advice.timeout() + maxNetworkDelay;
        }
        sendConnect(via, connect, expected, timeout);
    }

    private void onConnectReply(long expected, Message reply) {
        Runnable next;
        synchronized (lock) {
            if (expected != generation || !isSessionActive()) {
                return;
            }
            // The server's reconnect advice wins even on a successful reply: a session ended by the server gets
            // its held connect answered successfully with reconnect: none.
            String reconnect = advice.reconnectOf(reply.getAdvice());
            if (reply.isSuccessful() && Advice.RETRY.equals(reconnect)) {
                advice = advice.merge(reply.getAdvice());
                state = State.CONNECTED;
                backoff = 0;
                next = schedule(this::nextConnect, advice.interval());
            } else {
                if (Advice.NONE.equals(reconnect)) {
                    next = terminate(reply.isSuccessful() ? new IOException("the server ended the session")
                            : new ReplyException(reply), null);
                } else if (Advice.HANDSHAKE.equals(reconnect)) {
                    next = rehandshake(interval(reply));
                } else {
                    state = State.UNCONNECTED;
                    next = schedule(this::nextConnect, interval(reply) + nextBackoff());
                }
            }
        }
        run(next);
    }

    private void onConnectFailure(long expected, Throwable failure) {
        Runnable next;
        synchronized (lock) {
            if (expected != generation || !isSessionActive()) {
                return;
            }
            LOG.debug("/meta/connect failed for {}: {}", clientId, failure.toString());
            if (Advice.HANDSHAKE.equals(advice.reconnect())) {
                next = rehandshake(advice.interval() + nextBackoff());
            } else {
                state = State.UNCONNECTED;
                next = schedule(this::nextConnect, advice.interval() + nextBackoff());
            }
        }
        run(next);
    }

    /** Under the lock: the server forgot the session; handshake again, keeping subscriptions and listeners. */
    private Runnable rehandshake(long delay) {
        state = State.HANDSHAKING;
        clientId = null;
        generation++;
        return schedule(this::sendHandshake, delay);
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
        ClientMessage message = ClientMessage.of(channel);
        message.setData(data);
        message.setId(nextId());
        enqueue(new Wire.Outgoing(message, userHandler(promise)));
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
        enqueue(new Wire.Outgoing(subscribeMessage(channel), handler));
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
        ClientMessage message = ClientMessage.of("/meta/unsubscribe");
        message.put(Message.SUBSCRIPTION, channel);
        message.setId(nextId());
        enqueue(new Wire.Outgoing(message, userHandler(promise)));
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

    /** Starts holding messages back until the matching {@link #endBatch()}; batches nest. */
    public void startBatch() {
        synchronized (lock) {
            batchDepth++;
        }
    }

    /** Ends a batch; the outermost sends what was held as one batch. */
    public void endBatch() {
        ClientTransport via = null;
        List<Wire.Outgoing> flush = null;
        synchronized (lock) {
            if (batchDepth == 0) {
                throw new IllegalStateException("endBatch() without startBatch()");
            }
            if (--batchDepth > 0 || batched.isEmpty()) {
                return;
            }
            List<Wire.Outgoing> held = new ArrayList<>(batched);
            batched.clear();
            if (isSessionActive()) {
                via = transport;
                flush = held;
                stamp(flush);
            } else if (state == State.HANDSHAKING) {
                waiting.addAll(held);
            } else {
                flush = held;
            }
        }
        if (via != null) {
            send(via, flush);
        } else if (flush != null) {
            failAll(flush, new IllegalStateException("not handshaken"));
        }
    }

    private void enqueue(Wire.Outgoing outgoing) {
        ClientTransport via;
        synchronized (lock) {
            if (state == State.DISCONNECTED || state == State.DISCONNECTING) {
                via = null;
            } else if (batchDepth > 0) {
                batched.add(outgoing);
                return;
            } else if (state == State.HANDSHAKING) {
                waiting.add(outgoing);
                return;
            } else {
                via = transport;
                outgoing.message().setClientId(clientId);
            }
        }
        if (via == null) {
            Wire.complete(outgoing.handler(), new IllegalStateException("the client is not handshaken"));
        } else {
            send(via, List.of(outgoing));
        }
    }

    private void send(ClientTransport via, List<Wire.Outgoing> batch) {
        wire.send(via, batch, maxNetworkDelay);
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
        ClientTransport via = null;
        ClientMessage message = null;
        Runnable aftermath = null;
        synchronized (lock) {
            if (state == State.DISCONNECTED) {
                Wire.complete(promise, (Message) null);
                return;
            }
            if (state == State.DISCONNECTING) {
                Wire.complete(promise, new IllegalStateException("already disconnecting"));
                return;
            }
            if (state == State.HANDSHAKING) {
                aftermath = terminate(new IOException("disconnected"), null);
            } else {
                state = State.DISCONNECTING;
                disconnectPromise = promise;
                cancelTimer();
                via = transport;
                message = ClientMessage.of("/meta/disconnect");
                message.setClientId(clientId);
                message.setId(nextId());
            }
        }
        if (aftermath != null) {
            aftermath.run();
            Wire.complete(promise, (Message) null);
            return;
        }
        Promise<Message> handler = Promise.from(this::disconnected, failure -> disconnected(null));
        send(via, List.of(new Wire.Outgoing(message, handler)));
    }

    private void disconnected(Message reply) {
        Runnable aftermath = null;
        synchronized (lock) {
            if (state == State.DISCONNECTING) {
                aftermath = terminate(new IOException("disconnected"), reply);
            }
        }
        run(aftermath);
    }

    /**
     * Under the lock: the session is over. Returns what the caller runs once it has released the lock: close the
     * transports (which fails what is in flight), fail what waited, complete the pending promises.
     */
    private Runnable terminate(Throwable cause, Message disconnectReply) {
        state = State.DISCONNECTED;
        clientId = null;
        generation++;
        cancelTimer();
        List<Wire.Outgoing> dropped = takeWaiting();
        dropped.addAll(batched);
        batched.clear();
        Promise<Message> handshake = handshakePromise;
        Promise<Message> disconnect = disconnectPromise;
        handshakePromise = null;
        disconnectPromise = null;
        return () -> {
            for (ClientTransport each : transports) {
                each.close();
            }
            wire.failAll(cause);
            failAll(dropped, cause);
            if (handshake != null) {
                Wire.complete(handshake, cause);
            }
            if (disconnect != null) {
                Wire.complete(disconnect, disconnectReply);
            }
        };
    }

    /** A meta message the server sent unasked: a {@code /meta/disconnect} means the server ended the session. */
    void onUnsolicited(Message message) {
        if (!"/meta/disconnect".equals(message.getChannel())) {
            return;
        }
        Runnable aftermath = null;
        synchronized (lock) {
            if (isSessionActive()) {
                aftermath = terminate(new IOException("the server ended the session"), null);
            }
        }
        run(aftermath);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private boolean isSessionActive() {
        return state == State.CONNECTING || state == State.CONNECTED || state == State.UNCONNECTED;
    }

    private Advice advice() {
        synchronized (lock) {
            return advice;
        }
    }

    private long interval(Message reply) {
        Map<String, Object> replyAdvice = reply.getAdvice();
        Object interval = replyAdvice == null ? null : replyAdvice.get("interval");
        return interval instanceof Number n && n.longValue() >= 0 ? n.longValue() : advice().interval();
    }

    /** Under the lock: the next retry's extra delay, growing by the increment up to the maximum. */
    private long nextBackoff() {
        backoff = Math.min(backoff + backoffIncrement, maxBackoff);
        return backoff;
    }

    /**
     * Under the lock: runs {@code task} after {@code delay} ms on the scheduler; when there is no delay, returns it for
     * the caller to run once it has released the lock (on the thread that read the reply, sparing the scheduler).
     */
    private Runnable schedule(Runnable task, long delay) {
        cancelTimer();
        if (delay <= 0) {
            return task;
        }
        timer = scheduler.schedule(task, delay, TimeUnit.MILLISECONDS);
        return null;
    }

    private static void run(Runnable next) {
        if (next != null) {
            next.run();
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** Under the lock: the messages that waited for the handshake, with the new clientId. */
    private List<Wire.Outgoing> takeWaiting() {
        List<Wire.Outgoing> taken = new ArrayList<>(waiting);
        waiting.clear();
        stamp(taken);
        return taken;
    }

    private void stamp(List<Wire.Outgoing> messages) {
        for (Wire.Outgoing outgoing : messages) {
            outgoing.message().setClientId(clientId);
        }
    }

    private ClientMessage subscribeMessage(String channel) {
        ClientMessage message = ClientMessage.of("/meta/subscribe");
        message.put(Message.SUBSCRIPTION, channel);
        message.setId(nextId());
        return message;
    }

    private void logRefusedResubscribe(String channel, Message reply) {
        if (!reply.isSuccessful()) {
            LOG.info("The server refused the resubscription to {}: {}", channel, reply.get(Message.ERROR));
        }
    }

    private String nextId() {
        return Long.toString(nextId.incrementAndGet());
    }

    private static void failAll(List<Wire.Outgoing> messages, Throwable cause) {
        for (Wire.Outgoing outgoing : messages) {
            Wire.complete(outgoing.handler(), cause);
        }
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
        synchronized (lock) {
            return "BayeuxClient[" + url + ", " + state + ", " + clientId + "]";
        }
    }
}
