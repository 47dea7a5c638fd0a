package io.weft.server.stress;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * One simulated client, on its own thread, behaving as the official clients do (handshake, a /meta/connect always
 * outstanding, acknowledgement of the last batch received when it asked for acks) and, depending on its role,
 * misbehaving: dropping connections, going silent until its session is about to expire, disconnecting, vanishing.
 *
 * <p>Everything it does and receives goes into the {@link Ledger}; every reply that is not what the protocol says is a
 * problem there. A subclass supplies the transport.
 */
abstract class StressClient implements Callable<Void> {
    /** What a client does to the server. */
    enum Role {
        /** Keeps its session to the end and must receive every message published while it was subscribed. */
        RELIABLE,
        /** Drops connections, goes silent, disconnects and vanishes; only order and duplicates are checked. */
        CHAOTIC
    }

    static final List<String> PATTERNS = List.of("/stress/a", "/stress/b", "/stress/*", "/stress/**",
            "/stress/deep/*", "/lazy", "/stress/tmp/0", "/stress/tmp/1", "/stress/tmp/2");
    static final List<String> CHANNELS = List.of("/stress/a", "/stress/b", "/stress/deep/x", "/lazy",
            "/stress/tmp/0", "/stress/tmp/1", "/stress/tmp/2", "/stress/tmp/3");
    static final String ROLE = "stress.role";
    private static final Pattern ERROR = Pattern.compile("4[0-9]{2}:.*:[a-z_]+", Pattern.DOTALL);
    static final long REPLY_WAIT_MILLIS = 10_000;

    protected final String name;
    protected final Role role;
    protected final boolean asksAcks;
    protected final String browser;
    protected final Random random;
    protected final Stage stage;
    protected final Ledger ledger;

    /** The current session; null between sessions. */
    protected String clientId;
    protected Ledger.SessionLog log;
    protected boolean acked;
    protected long lastBatch;
    private boolean disconnecting;
    private final Set<String> subscriptions = new HashSet<>();
    private long seq;
    private long nextId;

    StressClient(String name, Role role, boolean asksAcks, long seed, Stage stage) {
        this.name = name;
        this.role = role;
        this.asksAcks = asksAcks;
        this.browser = "browser-" + name;
        this.random = new Random(seed);
        this.stage = stage;
        this.ledger = stage.ledger();
    }

    // ---- the transport ----

    /** Sends one message that is not a /meta/connect; returns its reply, or null (a problem) if none came in time. */
    protected abstract Map<String, Object> request(Map<String, Object> message);

    /** Keeps a /meta/connect outstanding: takes the answer of the last one if it came, and sends the next. */
    protected abstract void pump();

    /** Waits up to {@code millis} for the outstanding /meta/connect's answer, and takes it. */
    protected abstract void awaitConnect(long millis);

    /** Whether a /meta/connect is outstanding. */
    protected abstract boolean connecting();

    /** Loses what is in flight: the held /meta/connect and its answer (a connection that broke). */
    protected abstract void drop();

    /** Lets {@code millis} pass, taking whatever arrives. */
    protected abstract void idle(long millis);

    protected abstract String connectionType();

    /** Closes the transport at the very end. */
    protected abstract void close();

    // ---- the run ----

    @Override
    public Void call() {
        try {
            while (stage.publishing()) {
                act();
            }
        } catch (Throwable x) {
            ledger.problem(name + " failed: " + Stage.stackTrace(x));
        }
        stage.publishingStopped(name);
        try {
            finish();
        } catch (Throwable x) {
            ledger.problem(name + " failed to finish: " + Stage.stackTrace(x));
        } finally {
            close();
        }
        return null;
    }

    private void act() {
        if (clientId == null && !handshake()) {
            idle(20);
            return;
        }
        pump();
        if (clientId == null) {
            return;
        }
        double dice = random.nextDouble();
        if (dice < 0.40) {
            publish();
        } else if (dice < 0.50) {
            toggleSubscription();
        } else if (dice < 0.54) {
            if (role == Role.CHAOTIC || acked) {
                ledger.count(connecting() ? "held connects dropped" : "drops with nothing held");
                drop();
            }
        } else if (role == Role.CHAOTIC && dice < 0.57) {
            silentUntilExpiry();
        } else if (role == Role.CHAOTIC && dice < 0.59) {
            disconnect();
        } else if (role == Role.CHAOTIC && dice < 0.60) {
            vanish();
        }
        idle(1 + random.nextInt(6));
    }

    /**
     * Once publishing has stopped everywhere: a reliable client takes what it is owed, then disconnects; a chaotic one
     * disconnects or vanishes, leaving its session to expire.
     */
    private void finish() {
        if (role == Role.RELIABLE) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (clientId != null && System.nanoTime() < deadline && !log.missing().isEmpty()) {
                pump();
                idle(20);
            }
            if (clientId != null) {
                disconnect();
            }
        } else if (clientId != null) {
            if (random.nextBoolean()) {
                disconnect();
            } else {
                vanish();
            }
        }
    }

    // ---- protocol steps ----

    /** A new session is about to be asked for: a transport may start afresh. */
    protected void newSession() {
    }

    private boolean handshake() {
        newSession();
        boolean ack = role == Role.RELIABLE ? asksAcks : random.nextBoolean();
        Map<String, Object> ext = new LinkedHashMap<>();
        if (ack) {
            ext.put("ack", true);
        }
        ext.put("stress", role.name());
        Map<String, Object> message = message("/meta/handshake");
        message.put(Message.VERSION, "1.0");
        message.put(Message.SUPPORTED_CONNECTION_TYPES, List.of(connectionType()));
        message.put(Message.EXT, ext);
        Map<String, Object> reply = request(message);
        if (reply == null || !Boolean.TRUE.equals(reply.get(Message.SUCCESSFUL))) {
            ledger.problem(name + ": handshake not successful: " + reply);
            return false;
        }
        clientId = (String) reply.get(Message.CLIENT_ID);
        acked = ack && reply.get(Message.EXT) instanceof Map<?, ?> answer && Boolean.TRUE.equals(answer.get("ack"));
        if (ack != acked) {
            ledger.problem(name + ": asked for acks and the handshake reply did not grant them: " + reply);
        }
        log = ledger.session(clientId, name, role == Role.RELIABLE);
        ledger.count("sessions " + role + (acked ? " acked" : "") + " " + connectionType());
        lastBatch = 0;
        disconnecting = false;
        subscriptions.clear();
        if (role == Role.RELIABLE) {
            subscribe(PATTERNS.get(random.nextInt(PATTERNS.size())));
            subscribe(PATTERNS.get(random.nextInt(PATTERNS.size())));
        }
        return true;
    }

    /** The next /meta/connect; {@code now}: not to be held. */
    protected Map<String, Object> connectMessage(boolean now) {
        Map<String, Object> message = message("/meta/connect");
        message.put(Message.CONNECTION_TYPE, connectionType());
        if (now) {
            message.put(Message.ADVICE, Map.of("timeout", 0));
        }
        if (acked) {
            message.put(Message.EXT, Map.of("ack", lastBatch));
        }
        return message;
    }

    private void publish() {
        String channel = CHANNELS.get(random.nextInt(CHANNELS.size()));
        long id = ledger.nextPublishId();
        long number = ++seq;
        Map<String, Object> message = message(channel);
        message.put(Message.DATA, Map.of("g", id, "t", name, "s", number));
        long sent = ledger.tick();
        Map<String, Object> reply = request(message);
        long answered = ledger.tick();
        boolean ok = reply != null && Boolean.TRUE.equals(reply.get(Message.SUCCESSFUL));
        ledger.published(new Ledger.Publish(id, name, number, ChannelId.of(channel), sent, answered, ok));
        if (reply != null && !ok) {
            failed(reply);
        }
    }

    private void toggleSubscription() {
        String pattern = PATTERNS.get(random.nextInt(PATTERNS.size()));
        if (subscriptions.contains(pattern)) {
            unsubscribe(pattern);
        } else {
            subscribe(pattern);
        }
    }

    private void subscribe(String pattern) {
        changeSubscription("/meta/subscribe", pattern);
    }

    private void unsubscribe(String pattern) {
        changeSubscription("/meta/unsubscribe", pattern);
    }

    /** A subscribe or unsubscribe, and what the ledger learns from its reply. */
    private void changeSubscription(String channel, String pattern) {
        boolean subscribing = "/meta/subscribe".equals(channel);
        Map<String, Object> message = message(channel);
        message.put(Message.SUBSCRIPTION, pattern);
        long sent = ledger.tick();
        Map<String, Object> reply = request(message);
        long answered = ledger.tick();
        if (log == null) {
            return;
        }
        if (reply != null && Boolean.TRUE.equals(reply.get(Message.SUCCESSFUL))) {
            if (subscribing) {
                subscriptions.add(pattern);
                log.subscribed(ChannelId.of(pattern), sent, answered);
            } else {
                subscriptions.remove(pattern);
                log.unsubscribed(ChannelId.of(pattern), sent, answered);
            }
        } else if (reply != null) {
            failed(reply);
        }
    }

    /** Ends the session; its held /meta/connect must then be answered, with reconnect none. */
    private void disconnect() {
        ledger.count("disconnects");
        disconnecting = true;
        Ledger.SessionLog ending = log;
        String id = clientId;
        long sent = ledger.tick();
        Map<String, Object> reply = request(message("/meta/disconnect"));
        ending.ended(sent, ledger.tick());
        if (reply != null && !Boolean.TRUE.equals(reply.get(Message.SUCCESSFUL)) && clientId != null) {
            failed(reply);
        }
        if (connecting()) {
            awaitConnect(2_000);
            if (connecting()) {
                ledger.problem(name + ": the held /meta/connect of " + id + " was not answered within 2 s of its "
                        + "/meta/disconnect");
                drop();
            }
        }
        forget();
    }

    /** Goes away without a word: the session must expire. */
    private void vanish() {
        ledger.count("vanished");
        drop();
        log.ended(ledger.tick(), Ledger.NEVER);
        forget();
    }

    /**
     * Takes the answer of the held /meta/connect, then waits about maxInterval before the next: the next one reaches
     * the server around the time its session expires.
     */
    private void silentUntilExpiry() {
        ledger.count("silences until about the expiry");
        awaitConnect(stage.timeout() + 1_000);
        long maxInterval = stage.maxInterval();
        sleep(maxInterval - 30 + random.nextInt(60));
    }

    /** The session has ended: what is still in flight for it belongs to it, not to the next one. */
    protected abstract void sessionEnded();

    private void forget() {
        sessionEnded();
        clientId = null;
        log = null;
        subscriptions.clear();
    }

    // ---- what arrives ----

    /** Takes what a connection delivered: deliveries, /meta/connect replies, server notices. */
    protected void take(List<Map<String, Object>> messages) {
        for (Map<String, Object> message : messages) {
            String channel = String.valueOf(message.get(Message.CHANNEL));
            if (!message.containsKey(Message.SUCCESSFUL)) {
                delivered(message);
            } else if ("/meta/connect".equals(channel)) {
                connectAnswered(message);
            } else if ("/meta/disconnect".equals(channel) && message.get(Message.ID) == null) {
                ended("a /meta/disconnect notice", stage.disconnectedByServer(clientId));
            } else {
                ledger.problem(name + ": unexpected message " + message);
            }
        }
    }

    private void delivered(Map<String, Object> message) {
        if (log == null) {
            ledger.problem(name + ": a delivery without a session: " + message);
            return;
        }
        if (!(message.get(Message.DATA) instanceof Map<?, ?> data) || !(data.get("g") instanceof Number id)
                || !(data.get("t") instanceof String publisher) || !(data.get("s") instanceof Number number)) {
            ledger.problem(name + ": a delivery that no client published: " + message);
            return;
        }
        log.received(id.longValue(), publisher, number.longValue());
    }

    private void connectAnswered(Map<String, Object> reply) {
        checkForm(reply);
        if (!Boolean.TRUE.equals(reply.get(Message.SUCCESSFUL))) {
            failed(reply);
            return;
        }
        Object reconnect = reply.get(Message.ADVICE) instanceof Map<?, ?> advice ? advice.get("reconnect") : null;
        if ("none".equals(reconnect)) {
            ended("a successful /meta/connect reply with reconnect none", disconnecting
                    || stage.disconnectedByServer(clientId));
        } else if ("handshake".equals(reconnect)) {
            ended("a successful /meta/connect reply with reconnect handshake", false);
        } else if (acked) {
            Object ack = reply.get(Message.EXT) instanceof Map<?, ?> ext ? ext.get("ack") : null;
            if (!(ack instanceof Number batch) || batch.longValue() <= lastBatch) {
                ledger.problem(name + ": a /meta/connect reply of an acknowledged session without a new batch id "
                        + "(last " + lastBatch + "): " + reply);
            } else {
                lastBatch = batch.longValue();
            }
        }
    }

    /** A failed reply: the session may have ended (402), which only a chaotic client may see. */
    protected void failed(Map<String, Object> reply) {
        checkForm(reply);
        String error = String.valueOf(reply.get(Message.ERROR));
        Object reconnect = reply.get(Message.ADVICE) instanceof Map<?, ?> advice ? advice.get("reconnect") : null;
        if (!error.startsWith("402:")) {
            ledger.problem(name + ": unexpected error reply " + reply);
        } else if ("none".equals(reconnect)) {
            ended("402 with reconnect none", disconnecting || stage.disconnectedByServer(clientId));
        } else {
            ended("402::session_unknown", role == Role.CHAOTIC);
        }
    }

    private void ended(String how, boolean expected) {
        if (clientId == null) {
            return;
        }
        ledger.count("sessions ended by " + how);
        if (!expected) {
            String why = disconnecting ? "" : " (nobody disconnected it)";
            log.lost = how;
            ledger.problem(name + ": " + log + " ended by " + how + why);
        }
        log.ended(ledger.tick(), Ledger.NEVER);
        forget();
    }

    protected void checkForm(Map<String, Object> reply) {
        Object successful = reply.get(Message.SUCCESSFUL);
        if (Boolean.FALSE.equals(successful) && !(reply.get(Message.ERROR) instanceof String error
                && ERROR.matcher(error).matches())) {
            ledger.problem(name + ": a failed reply without a 4xx code:args:message error: " + reply);
        } else if (!(successful instanceof Boolean)) {
            ledger.problem(name + ": a reply without a boolean successful: " + reply);
        }
    }

    /** A message of this client's session, with a fresh id. */
    protected Map<String, Object> message(String channel) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put(Message.CHANNEL, channel);
        if (clientId != null) {
            message.put(Message.CLIENT_ID, clientId);
        }
        message.put(Message.ID, name + "-" + (++nextId));
        return message;
    }

    protected static void sleep(long millis) {
        try {
            Thread.sleep(Math.max(0, millis));
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", x);
        }
    }
}
