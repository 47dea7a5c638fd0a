package io.weft.server.internal.protocol;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.Limit;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.util.Steps;
import io.weft.server.spi.Connection;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WebSocket: batches in, one at a time and in order, and one flusher out. Replies and the bound session's queued
 * messages leave in frames of at most {@code maxMessagesPerFrame} messages, replies first, the queued ones within
 * {@code maxMessageSize} bytes (or one alone, if larger), with one write in flight:
 * the next frame is taken when the previous write completes, so a client that stops reading holds back only its own
 * queue. A batch's {@code processed} promise completes when the frame carrying its last reply is written, which is
 * when the transport reads the next batch: a client that sends without reading makes the server hold one batch's
 * replies, never a growing queue.
 *
 * <p>Waking is lock-free: publishers fan out to thousands of endpoints, and each wake is one compare-and-set on
 * {@link #state}, never a wait for the thread completing this socket's previous write. The flusher is whichever
 * thread moved the state from IDLE; a wake that arrives while it works marks the state DIRTY, and the flusher looks
 * again before it goes idle.
 */
final class PushEndpoint implements Endpoint {
    /** Sessions a socket remembers having handshaken, for {@code requireHandshakePerConnection}. */
    private static final int MAX_HANDSHAKEN = 8;

    private static final Logger LOG = LoggerFactory.getLogger(PushEndpoint.class);
    private static final int IDLE = 0;
    private static final int FLUSHING = 1;
    private static final int DIRTY = 2;

    private final EngineImpl engine;
    private final Connection connection;
    private final int maxPerFrame;
    /** The most bytes of queued messages one frame takes (the first alone may be larger): what a write holds. */
    private final int maxFrameBytes;
    private final Batches batches = new Batches();
    /** Messages to write before the session's queue: replies, and notices such as a held connect's reply. */
    private final ConcurrentLinkedQueue<Outgoing> pending = new ConcurrentLinkedQueue<>();
    /**
     * How many units wait in {@link #pending}. A client that reads keeps it at one or two; one that does not read but
     * keeps sending (a {@code /meta/connect} replacing the held one leaves that one's reply here) would grow it
     * without bound: past {@code maxPendingFrames} the engine gives up on the connection.
     */
    private final AtomicInteger pendingUnits = new AtomicInteger();
    private final int maxPending;
    private final AtomicInteger state = new AtomicInteger(IDLE);
    /** The unit the flusher has started to write and not finished (it did not fit in one frame); flusher only. */
    private Outgoing partial;
    private int partialOffset;
    private final boolean local;
    /**
     * The sessions handshaken on this socket under {@code requireHandshakePerConnection} (the last few: a client
     * handshakes again on the same socket after a 402), else null.
     */
    private final ArrayDeque<String> handshaken;
    private volatile SessionImpl session;
    private volatile boolean closed;
    /**
     * Why this connection is to be closed once everything queued on it is written (an eventsource stream whose session
     * ended), or null.
     */
    private volatile String closeWhenWritten;
    /** The server is draining: what this endpoint is given next is the last it carries ({@link #goAway()}). */
    private volatile boolean goingAway;
    /** What {@link #goAway()} announced has been given: the connection goes away once nothing waits any more. */
    private volatile boolean awayWhenWritten;

    /** Messages that leave in order, and who to tell once the last of them is written. */
    private record Outgoing(List<Message> messages, Promise<Void> written) {
    }

    PushEndpoint(EngineImpl engine, Connection connection, boolean local) {
        this.engine = engine;
        this.connection = connection;
        this.local = local;
        this.handshaken = engine.options().requireHandshakePerConnection() && !local ? new ArrayDeque<>(2) : null;
        this.maxPerFrame = engine.options().maxMessagesPerFrame();
        this.maxFrameBytes = engine.options().maxMessageSize();
        this.maxPending = engine.options().maxPendingFrames();
    }

    @Override
    public Connection connection() {
        return connection;
    }

    @Override
    public boolean local() {
        return local;
    }

    @Override
    public void receive(List<Message.Mutable> batch, Promise<Void> processed) {
        batches.add(batch, processed);
    }

    @Override
    public void bind(SessionImpl session) {
        this.session = session;
    }

    @Override
    public void handshook(SessionImpl session) {
        if (handshaken != null) {
            synchronized (handshaken) {
                if (handshaken.size() == MAX_HANDSHAKEN) {
                    handshaken.pollFirst();
                }
                handshaken.addLast(session.getId());
            }
        }
    }

    @Override
    public boolean admits(String clientId) {
        if (handshaken == null) {
            return true;
        }
        synchronized (handshaken) {
            return handshaken.contains(clientId);
        }
    }

    @Override
    public void batchDone(List<Message> replies, boolean held, Promise<Void> processed) {
        // The replies first: the next batch may start on this thread as soon as this one is handled, and its replies
        // must not overtake these.
        if (replies.isEmpty()) {
            processed.succeed(null);
        } else {
            enqueue(replies, processed);
        }
        lastGiven();
        batches.handled();
    }

    @Override
    public void deliver(List<Message> messages) {
        enqueue(messages, Promise.noop());
        lastGiven();
    }

    /**
     * The server is draining: the next answer given (a batch's replies, or a held connect's reply) is the last; once it
     * is written the connection goes away ({@link Connection#goAway()}: a WebSocket closes with 1001).
     */
    @Override
    public void goAway() {
        goingAway = true;
    }

    /** After an answer is queued: if it was announced as the last, the connection goes once it is written. */
    private void lastGiven() {
        if (goingAway && !awayWhenWritten) {
            awayWhenWritten = true;
            wake();
        }
    }

    private void enqueue(List<Message> messages, Promise<Void> written) {
        if (closed) {
            written.fail(new ClosedChannelException());
            return;
        }
        if (pendingUnits.incrementAndGet() > maxPending) {
            pendingUnits.decrementAndGet();
            written.fail(new ClosedChannelException());
            giveUp();
            return;
        }
        // Closed meanwhile? The flusher this wakes fails the unit: it checks closed before it takes anything.
        pending.add(new Outgoing(messages, written));
        wake();
    }

    /** The client does not read what it asks for: this connection is done, counted once, the transport told why. */
    private void giveUp() {
        if (closed) {
            return;
        }
        engine.refused(Limit.PENDING_FRAMES);
        closed();
        connection.close("more than " + maxPending + " answers waited to be written (maxPendingFrames): read what "
                + "the server sends");
    }

    /** A stream's session has ended: what it was told (its end) is written, then the stream is closed. */
    @Override
    public void sessionEnded() {
        closeWhenWritten = "the session has ended";
        wake();
    }

    /** A newer stream of the same session replaced this one: closed at once, its held connect dropped. */
    void replaced() {
        if (closed) {
            return;
        }
        closed();
        connection.close("replaced by a newer stream of the same session");
    }

    @Override
    public void wake() {
        while (true) {
            int current = state.get();
            if (current == IDLE) {
                if (state.compareAndSet(IDLE, FLUSHING)) {
                    flush();
                    return;
                }
            } else if (current == DIRTY || state.compareAndSet(FLUSHING, DIRTY)) {
                return;
            }
        }
    }

    /**
     * Writes frames until nothing is left, or until a write has not completed yet (its completion goes on). Only the
     * thread that owns the FLUSHING state runs this.
     */
    private void flush() {
        while (true) {
            // Any wake from here on marks the state DIRTY, so nothing queued after this look is missed.
            state.set(FLUSHING);
            Write write = new Write();
            List<Message> frame = nextFrame(write);
            if (frame == null) {
                if (state.compareAndSet(FLUSHING, IDLE)) {
                    closeIfDone();
                    return;
                }
                continue;
            }
            try {
                engine.counters().written(connection.type(), frame);
                connection.send(frame, write);
            } catch (Throwable x) {
                // A transport must fail the promise, not throw; if one throws, the socket is done for, not the flusher.
                write.fail(x);
            }
            if (!write.completedBeforeReturn()) {
                return;
            }
        }
    }

    /**
     * Closes a connection asked to close once written ({@link #sessionEnded()}, {@link #goAway()}), when nothing waits
     * any more.
     */
    private void closeIfDone() {
        if (closed || pendingUnits.get() != 0) {
            return;
        }
        String reason = closeWhenWritten;
        if (awayWhenWritten) {
            closed();
            connection.goAway();
        } else if (reason != null) {
            closed();
            connection.close(reason);
        }
    }

    /** The next frame, or null if nothing waits; the units it finishes are told through {@code write}. */
    private List<Message> nextFrame(Write write) {
        if (closed) {
            failPending();
            return null;
        }
        List<Message> frame = null;
        while (frame == null || frame.size() < maxPerFrame) {
            if (partial == null) {
                partial = pending.poll();
                partialOffset = 0;
                if (partial == null) {
                    break;
                }
                pendingUnits.decrementAndGet();
            }
            List<Message> messages = partial.messages();
            int room = maxPerFrame - (frame == null ? 0 : frame.size());
            int end = Math.min(messages.size(), partialOffset + room);
            if (frame == null) {
                frame = new ArrayList<>(Math.min(maxPerFrame, end - partialOffset + 4));
            }
            frame.addAll(messages.subList(partialOffset, end));
            partialOffset = end;
            if (end == messages.size()) {
                write.finishes(partial.written());
                partial = null;
            }
        }
        SessionImpl bound = session;
        int room = maxPerFrame - (frame == null ? 0 : frame.size());
        if (bound != null && room > 0) {
            List<Message> queued = bound.drainForPush(this, room, maxFrameBytes);
            if (!queued.isEmpty()) {
                if (frame == null) {
                    return queued;
                }
                frame.addAll(queued);
            }
        }
        return frame == null || frame.isEmpty() ? null : frame;
    }

    private void failPending() {
        ClosedChannelException closedChannel = new ClosedChannelException();
        Outgoing unit = partial;
        partial = null;
        if (unit != null) {
            unit.written().fail(closedChannel);
        }
        while ((unit = pending.poll()) != null) {
            pendingUnits.decrementAndGet();
            unit.written().fail(closedChannel);
        }
    }

    @Override
    public void closed() {
        if (closed) {
            return;
        }
        closed = true;
        wake();
        SessionImpl bound = session;
        if (bound != null) {
            bound.detach(this);
        }
    }

    /**
     * The batches of this socket, handled one at a time in the order received: a batch starts only when the one
     * before it has been handled, even if a transport hands over the next before the previous one's
     * {@code processed} has completed.
     */
    private final class Batches extends Steps {
        private final ArrayDeque<Runnable> waiting = new ArrayDeque<>(2);
        private boolean busy;

        void add(List<Message.Mutable> batch, Promise<Void> processed) {
            synchronized (this) {
                waiting.add(() -> engine.process(PushEndpoint.this, batch, processed));
                if (busy) {
                    return;
                }
                busy = true;
            }
            run();
        }

        /** The current batch has been handled (its replies are on their way): the next may start. */
        void handled() {
            next();
        }

        @Override
        protected boolean startNext() {
            Runnable batch;
            synchronized (this) {
                batch = waiting.poll();
                if (batch == null) {
                    busy = false;
                    return false;
                }
            }
            batch.run();
            return true;
        }
    }

    /** Completion of one frame's write; continues the flush when it completes after {@code send} returned. */
    private final class Write implements Promise<Void> {
        private static final int PENDING = 0;
        private static final int RETURNED = 1;
        private static final int COMPLETED = 2;
        private final AtomicInteger writeState = new AtomicInteger(PENDING);
        /** The first completion counts: a transport that completes twice must not start a second flusher. */
        private final AtomicBoolean completed = new AtomicBoolean();
        /** The units whose last message is in this frame; usually none or one. */
        private List<Promise<Void>> finishes;

        void finishes(Promise<Void> unitWritten) {
            if (finishes == null) {
                finishes = new ArrayList<>(1);
            }
            finishes.add(unitWritten);
        }

        boolean completedBeforeReturn() {
            return !writeState.compareAndSet(PENDING, RETURNED);
        }

        @Override
        public void succeed(Void result) {
            if (!completed.compareAndSet(false, true)) {
                return;
            }
            if (finishes != null) {
                for (Promise<Void> unit : finishes) {
                    unit.succeed(null);
                }
            }
            if (!writeState.compareAndSet(PENDING, COMPLETED)) {
                flush();
            }
        }

        @Override
        public void fail(Throwable failure) {
            if (!completed.compareAndSet(false, true)) {
                return;
            }
            LOG.debug("write failed on {}: {}", connection, failure.toString());
            if (finishes != null) {
                for (Promise<Void> unit : finishes) {
                    unit.fail(failure);
                }
            }
            closed();
            if (!writeState.compareAndSet(PENDING, COMPLETED)) {
                flush();
            }
        }
    }
}
