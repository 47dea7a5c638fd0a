package io.weft.server.internal.protocol;

import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.spi.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WebSocket: batches in, and one flusher out. Replies and the bound session's queued messages leave in frames
 * of at most {@code maxMessagesPerFrame} messages, replies first, with one write in flight: the next frame is taken
 * when the previous write completes, so a client that stops reading holds back only its own queue.
 *
 * <p>Waking is lock-free: publishers fan out to thousands of endpoints, and each wake is one compare-and-set on
 * {@link #state}, never a wait for the thread completing this socket's previous write. The flusher is whichever
 * thread moved the state from IDLE; a wake that arrives while it works marks the state DIRTY, and the flusher looks
 * again before it goes idle.
 */
final class PushEndpoint implements Endpoint {
    private static final Logger LOG = LoggerFactory.getLogger(PushEndpoint.class);
    private static final int IDLE = 0;
    private static final int FLUSHING = 1;
    private static final int DIRTY = 2;

    private final EngineImpl engine;
    private final Connection connection;
    private final int maxPerFrame;
    private final ConcurrentLinkedQueue<Message> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger state = new AtomicInteger(IDLE);
    private volatile SessionImpl session;
    private volatile boolean closed;

    PushEndpoint(EngineImpl engine, Connection connection) {
        this.engine = engine;
        this.connection = connection;
        this.maxPerFrame = engine.options().maxMessagesPerFrame();
    }

    @Override
    public Connection connection() {
        return connection;
    }

    @Override
    public void receive(List<Message.Mutable> batch) {
        engine.process(this, batch);
    }

    @Override
    public void bind(SessionImpl session) {
        this.session = session;
    }

    @Override
    public void batchDone(List<Message> replies, boolean held) {
        if (!replies.isEmpty()) {
            deliver(replies);
        }
    }

    @Override
    public void deliver(List<Message> messages) {
        if (closed) {
            return;
        }
        pending.addAll(messages);
        wake();
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
            List<Message> frame = nextFrame();
            if (frame == null) {
                if (state.compareAndSet(FLUSHING, IDLE)) {
                    return;
                }
                continue;
            }
            Write write = new Write();
            connection.send(frame, write);
            if (!write.completedBeforeReturn()) {
                return;
            }
        }
    }

    private List<Message> nextFrame() {
        if (closed) {
            pending.clear();
            return null;
        }
        List<Message> frame = null;
        Message reply;
        while ((frame == null || frame.size() < maxPerFrame) && (reply = pending.poll()) != null) {
            if (frame == null) {
                frame = new ArrayList<>(Math.min(maxPerFrame, 16));
            }
            frame.add(reply);
        }
        SessionImpl bound = session;
        int room = maxPerFrame - (frame == null ? 0 : frame.size());
        if (bound != null && room > 0) {
            List<Message> queued = bound.drainForPush(this, room);
            if (!queued.isEmpty()) {
                if (frame == null) {
                    return queued;
                }
                frame.addAll(queued);
            }
        }
        return frame;
    }

    @Override
    public void closed() {
        if (closed) {
            return;
        }
        closed = true;
        pending.clear();
        SessionImpl bound = session;
        if (bound != null) {
            bound.detach(this);
        }
    }

    /** Completion of one frame's write; continues the flush when it completes after {@code send} returned. */
    private final class Write implements Promise<Void> {
        private static final int PENDING = 0;
        private static final int RETURNED = 1;
        private static final int COMPLETED = 2;
        private final AtomicInteger writeState = new AtomicInteger(PENDING);

        boolean completedBeforeReturn() {
            return !writeState.compareAndSet(PENDING, RETURNED);
        }

        @Override
        public void succeed(Void result) {
            if (!writeState.compareAndSet(PENDING, COMPLETED)) {
                flush();
            }
        }

        @Override
        public void fail(Throwable failure) {
            LOG.debug("write failed on {}: {}", connection, failure.toString());
            closed();
            if (!writeState.compareAndSet(PENDING, COMPLETED)) {
                flush();
            }
        }
    }
}
