package io.weft.transport.websocket;

import io.weft.server.api.Promise;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.websocket.api.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When one socket reads its next frame (explicit demand): Jetty delivers one frame per {@link Session#demand()}, and
 * this asks for the next one only when the previous frame is done with, which for a batch means when its replies have
 * been written. A peer that sends without reading therefore stalls after one batch's replies (and what the socket
 * buffers hold), instead of making the server queue replies without bound.
 *
 * <p>Exactly one demand is outstanding at a time: Jetty throws {@code ReadPendingException} on a second one, so every
 * demand goes through {@link #next()}, which skips it when one is already outstanding, and every frame handler calls
 * {@link #delivered()} first.
 *
 * <p>Re-entrance. A batch's promise may complete before {@code receive} returns (the replies were written at once), on
 * the thread that is inside {@code onWebSocketText}; then {@link Batch#returned()} demands after {@code receive} has
 * returned, at the end of the frame handler, which is where Jetty's own auto-demand happens. Or it completes later on
 * another thread (Jetty's write callback, a publisher's thread), which demands there. Neither grows the stack with a
 * fast peer, because of how Jetty 12.1 meets demand: {@code WebSocketConnection.demand()} called on the thread that is
 * filling and parsing (inside a frame handler) only records it, and that thread's loop reads the next frame after the
 * handler has returned; called on any other thread it hands the read to the connector's executor, never running it on
 * the caller's stack. With permessage-deflate the demand first reaches the inflater (a {@code WebSocketDemander}, an
 * {@code IteratingCallback}): from another thread it may deliver an already inflated frame on the caller's stack, once,
 * and a demand made while it is delivering only makes its loop go round again. So frames are served by loops, never by
 * a recursion one level deeper per frame ({@code BackpressureTest} measures the stack with thousands of frames).
 */
final class FrameDemand {
    private static final Logger LOG = LoggerFactory.getLogger(FrameDemand.class);
    private final Session session;
    private final AtomicBoolean outstanding = new AtomicBoolean();

    FrameDemand(Session session) {
        this.session = session;
    }

    /** Asks Jetty for the next frame, unless a demand is already outstanding. Any thread. */
    void next() {
        if (outstanding.compareAndSet(false, true)) {
            try {
                session.demand();
            } catch (RuntimeException x) {
                // The socket failed meanwhile (Jetty refuses demand after a failure): nothing is left to read.
                LOG.debug("no demand on {}: {}", session, x.toString());
            }
        }
    }

    /** A frame has arrived: the demand that brought it is spent. Called first by every frame handler. */
    void delivered() {
        outstanding.set(false);
    }

    /** The promise for one batch: the next frame is demanded once it succeeds and {@code receive} has returned. */
    Batch batch() {
        return new Batch();
    }

    /** Completion of one batch ({@code Inbound.receive}'s {@code processed}). */
    final class Batch implements Promise<Void> {
        private static final int PENDING = 0;
        private static final int RETURNED = 1;
        private static final int SUCCEEDED = 2;
        private static final int FAILED = 3;
        private final AtomicInteger state = new AtomicInteger(PENDING);

        /** {@code receive} has returned: demands now if the batch was processed meanwhile, else leaves it to it. */
        void returned() {
            if (!state.compareAndSet(PENDING, RETURNED) && state.get() == SUCCEEDED) {
                next();
            }
        }

        @Override
        public void succeed(Void result) {
            if (!state.compareAndSet(PENDING, SUCCEEDED) && state.compareAndSet(RETURNED, SUCCEEDED)) {
                next();
            }
        }

        /** The connection ended before the batch was done: nothing more is read. */
        @Override
        public void fail(Throwable failure) {
            state.set(FAILED);
        }
    }
}
