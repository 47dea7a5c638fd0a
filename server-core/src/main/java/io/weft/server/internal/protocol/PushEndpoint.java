package io.weft.server.internal.protocol;

import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.spi.Connection;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WebSocket: batches in, and one flusher out. Replies and the bound session's queued messages leave in frames
 * of at most {@code maxMessagesPerFrame} messages, replies first, with one write in flight: the next frame is taken
 * when the previous write completes, so a client that stops reading holds back only its own queue.
 *
 * <p>Lock order: this endpoint, then the session (through {@link SessionImpl#drainForPush}); never the reverse.
 */
final class PushEndpoint implements Endpoint {
    private static final Logger LOG = LoggerFactory.getLogger(PushEndpoint.class);

    private final EngineImpl engine;
    private final Connection connection;
    private final int maxPerFrame;
    private final ArrayDeque<Message> pending = new ArrayDeque<>(4);
    private volatile SessionImpl session;
    private boolean writing;
    private boolean closed;

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
        synchronized (this) {
            if (closed) {
                return;
            }
            pending.addAll(messages);
            if (writing) {
                return;
            }
            writing = true;
        }
        flush();
    }

    @Override
    public void wake() {
        synchronized (this) {
            if (closed || writing) {
                return;
            }
            writing = true;
        }
        flush();
    }

    /** Writes frames until nothing is left, or until a write has not completed yet (its completion goes on). */
    private void flush() {
        while (true) {
            List<Message> frame = nextFrame();
            if (frame == null) {
                return;
            }
            Write write = new Write();
            connection.send(frame, write);
            if (!write.completedBeforeReturn()) {
                return;
            }
        }
    }

    private synchronized List<Message> nextFrame() {
        if (closed) {
            writing = false;
            return null;
        }
        List<Message> frame = new ArrayList<>(Math.min(maxPerFrame, pending.size() + 8));
        while (frame.size() < maxPerFrame && !pending.isEmpty()) {
            frame.add(pending.pollFirst());
        }
        SessionImpl bound = session;
        if (bound != null && frame.size() < maxPerFrame) {
            frame.addAll(bound.drainForPush(this, maxPerFrame - frame.size()));
        }
        if (frame.isEmpty()) {
            writing = false;
            return null;
        }
        return frame;
    }

    @Override
    public void closed() {
        SessionImpl bound;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            pending.clear();
            bound = session;
        }
        if (bound != null) {
            bound.detach(this);
        }
    }

    /** Completion of one frame's write; continues the flush when it completes after {@code send} returned. */
    private final class Write implements Promise<Void> {
        private static final int PENDING = 0;
        private static final int RETURNED = 1;
        private static final int COMPLETED = 2;
        private final AtomicInteger state = new AtomicInteger(PENDING);

        boolean completedBeforeReturn() {
            return !state.compareAndSet(PENDING, RETURNED);
        }

        @Override
        public void succeed(Void result) {
            if (!state.compareAndSet(PENDING, COMPLETED)) {
                flush();
            }
        }

        @Override
        public void fail(Throwable failure) {
            LOG.debug("write failed on {}: {}", connection, failure.toString());
            closed();
            if (!state.compareAndSet(PENDING, COMPLETED)) {
                flush();
            }
        }
    }
}
