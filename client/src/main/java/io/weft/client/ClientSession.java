package io.weft.client;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.client.BayeuxClient.State;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protocol state machine of one {@link BayeuxClient}: the handshake (with transport negotiation and fallback), the
 * {@code /meta/connect} loop that follows the server's advice (interval; reconnect retry, handshake or none), the
 * re-handshake that restores subscriptions, batching, the messages that wait for a session, and the disconnect.
 *
 * <pre>
 *  DISCONNECTED --handshake()--&gt; HANDSHAKING --reply--&gt; CONNECTING --connect reply--&gt; CONNECTED &lt;--&gt; UNCONNECTED
 *       ^                          ^  (retry, fallback)                    |  402 / reconnect: handshake
 *       |                          +---------------------------------------+
 *       +-- reconnect: none, disconnect() --- DISCONNECTING &lt;-- disconnect()
 * </pre>
 *
 * <p>All state sits behind one lock, never held while calling a transport, an extension, a listener or a promise:
 * decisions are taken under the lock and carried out after it is released (see {@link #schedule}).
 */
final class ClientSession {
    private static final Logger LOG = LoggerFactory.getLogger(ClientSession.class);

    private final Negotiation negotiation;
    private final ScheduledExecutorService scheduler;
    private final long maxNetworkDelay;
    private final long backoffIncrement;
    private final long maxBackoff;
    private final Listeners subscribers;
    private final Wire wire;
    private final AtomicLong nextId = new AtomicLong();

    private final Object lock = new Object();
    private State state = State.DISCONNECTED;
    private String clientId;
    private boolean handshakenBefore;
    private ClientTransport transport;
    private Advice advice = Advice.INITIAL;
    private long backoff;
    private long generation;
    private Future<?> timer;
    private int batchDepth;
    private final List<Wire.Outgoing> batched = new ArrayList<>();
    private final List<Wire.Outgoing> waiting = new ArrayList<>();
    private Promise<Message> handshakePromise;
    private Promise<Message> disconnectPromise;

    ClientSession(BayeuxClientBuilder builder, List<ClientTransport> transports, Listeners subscribers, Wire wire) {
        this.negotiation = new Negotiation(transports);
        this.scheduler = builder.scheduler();
        this.maxNetworkDelay = builder.maxNetworkDelay();
        this.backoffIncrement = builder.backoffIncrement();
        this.maxBackoff = builder.maxBackoff();
        this.subscribers = subscribers;
        this.wire = wire;
    }

    String clientId() {
        synchronized (lock) {
            return clientId;
        }
    }

    State state() {
        synchronized (lock) {
            return state;
        }
    }

    String transportName() {
        synchronized (lock) {
            return transport == null ? null : transport.name();
        }
    }

    // ---------------------------------------------------------------------------------------------- handshake

    /** Starts the session; see {@link BayeuxClient#handshake(Promise)}. */
    void handshake(Promise<Message> promise) {
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
        Message.Mutable handshake = Messages.of("/meta/handshake");
        synchronized (lock) {
            if (state != State.HANDSHAKING) {
                return;
            }
            timer = null;
            List<String> types = negotiation.offered();
            via = negotiation.forHandshake();
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
        Runnable next;
        synchronized (lock) {
            if (state != State.HANDSHAKING) {
                return;
            }
            negotiation.worked(transport);
            Object offered = reply.get(Message.SUPPORTED_CONNECTION_TYPES);
            ClientTransport chosen = negotiation.choose(offered, transport);
            next = chosen == null
                    ? terminate(new IOException("no common connection type: the server offers " + offered), null)
                    : establish(reply, chosen);
        }
        next.run();
    }

    /**
     * Under the lock: the handshake succeeded; the session moves to the chosen transport. Returns the sending to do
     * once the lock is released: the first connect, the subscriptions to restore after a re-handshake, the messages
     * that waited, and the handshake's promise.
     */
    private Runnable establish(Message reply, ClientTransport chosen) {
        ClientTransport previous = transport;
        transport = chosen;
        clientId = reply.getClientId();
        advice = new Advice(Advice.RETRY, advice.interval(), advice.timeout(), advice.maxInterval())
                .merge(reply.getAdvice());
        List<Wire.Outgoing> resubscribe = handshakenBefore ? resubscriptions() : List.of();
        handshakenBefore = true;
        state = State.CONNECTING;
        backoff = 0;
        generation++;
        Message.Mutable connect = connectMessage(true);
        long connectGeneration = generation;
        long connectTimeout = advice.timeout() + maxNetworkDelay;
        List<Wire.Outgoing> flush = takeWaiting();
        Promise<Message> promise = handshakePromise;
        handshakePromise = null;
        return () -> {
            if (previous != chosen) {
                previous.close();
            }
            sendConnect(chosen, connect, connectGeneration, connectTimeout);
            if (!resubscribe.isEmpty()) {
                send(chosen, resubscribe);
            }
            if (!flush.isEmpty()) {
                send(chosen, flush);
            }
            if (promise != null) {
                Wire.complete(promise, reply);
            }
        };
    }

    /** Under the lock, with the new clientId: a subscribe for every channel that has listeners. */
    private List<Wire.Outgoing> resubscriptions() {
        List<Wire.Outgoing> subscribes = new ArrayList<>();
        for (String channel : subscribers.channels()) {
            Message.Mutable subscribe = subscribeMessage(channel);
            subscribe.setClientId(clientId);
            subscribes.add(new Wire.Outgoing(subscribe, Promise.from(
                    reply -> logRefusedResubscribe(channel, reply),
                    failure -> LOG.debug("Resubscribing to {} failed: {}", channel, failure.toString()))));
        }
        return subscribes;
    }

    private void onHandshakeFailure(ClientTransport via, Throwable failure) {
        boolean fallBack;
        synchronized (lock) {
            if (state != State.HANDSHAKING) {
                return;
            }
            fallBack = negotiation.fallBackFrom(via);
            if (fallBack) {
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

    private Message.Mutable connectMessage(boolean first) {
        Message.Mutable connect = Messages.of("/meta/connect");
        connect.setClientId(clientId);
        connect.put(Message.CONNECTION_TYPE, transport.name());
        if (first) {
            // The first connect after a handshake returns at once, so the client learns it is connected.
            connect.getAdvice(true).put("timeout", 0);
        }
        connect.setId(nextId());
        return connect;
    }

    private void sendConnect(ClientTransport via, Message.Mutable connect, long expected, long timeout) {
        Promise<Message> handler = Promise.from(r -> onConnectReply(expected, r), x -> onConnectFailure(expected, x));
        wire.send(via, List.of(new Wire.Outgoing(connect, handler)), timeout);
    }

    private void nextConnect() {
        ClientTransport via;
        Message.Mutable connect;
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

    /** Starts holding messages back until the matching {@link #endBatch()}; batches nest. */
    void startBatch() {
        synchronized (lock) {
            batchDepth++;
        }
    }

    /** Ends a batch; the outermost sends what was held as one batch. */
    void endBatch() {
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

    /** Sends a message now, holds it in the current batch, or keeps it until the handshake succeeds. */
    void enqueue(Wire.Outgoing outgoing) {
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

    /** Ends the session; see {@link BayeuxClient#disconnect(Promise)}. */
    void disconnect(Promise<Message> promise) {
        ClientTransport via = null;
        Message.Mutable message = null;
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
                message = Messages.of("/meta/disconnect");
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
            for (ClientTransport each : negotiation.all()) {
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

    Message.Mutable subscribeMessage(String channel) {
        Message.Mutable message = Messages.of("/meta/subscribe");
        message.put(Message.SUBSCRIPTION, channel);
        message.setId(nextId());
        return message;
    }

    private void logRefusedResubscribe(String channel, Message reply) {
        if (!reply.isSuccessful()) {
            LOG.info("The server refused the resubscription to {}: {}", channel, reply.get(Message.ERROR));
        }
    }

    String nextId() {
        return Long.toString(nextId.incrementAndGet());
    }

    private static void failAll(List<Wire.Outgoing> messages, Throwable cause) {
        for (Wire.Outgoing outgoing : messages) {
            Wire.complete(outgoing.handler(), cause);
        }
    }
}
