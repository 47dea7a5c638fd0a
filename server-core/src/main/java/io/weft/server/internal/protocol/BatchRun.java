package io.weft.server.internal.protocol;

import io.weft.server.api.BayeuxError;
import io.weft.server.api.Message;
import io.weft.server.api.Promise;
import io.weft.server.internal.ExtensionChain;
import io.weft.server.internal.codec.MessageImpl;
import io.weft.server.internal.delivery.Wakes;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.spi.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processing of one batch: its messages one after the other (a handler may finish later, on another thread;
 * the loop then continues there), its replies in order, and the sessions to wake once at the end.
 */
final class BatchRun {
    private static final Logger LOG = LoggerFactory.getLogger(BatchRun.class);
    private static final BayeuxError SERVER_ERROR = new BayeuxError(500, null, "server_error");
    private static final int HANDLING = 0;
    private static final int RETURNED = 1;
    private static final int COMPLETED = 2;

    private final Dispatcher dispatcher;
    private final ExtensionChain extensions;
    private final Endpoint endpoint;
    private final List<Message.Mutable> batch;
    private final List<Message> replies;
    private final Wakes wakes = new Wakes();
    private final AtomicInteger state = new AtomicInteger();
    private final Promise<Void> step = Promise.from(ok -> stepDone(), this::stepFailed);
    private int index;
    private MessageImpl current;
    private SessionImpl session;
    private volatile boolean held;

    BatchRun(Dispatcher dispatcher, ExtensionChain extensions, Endpoint endpoint, List<Message.Mutable> batch) {
        this.dispatcher = dispatcher;
        this.extensions = extensions;
        this.endpoint = endpoint;
        this.batch = batch;
        this.replies = new ArrayList<>(batch.size() + 2);
    }

    Endpoint endpoint() {
        return endpoint;
    }

    Connection connection() {
        return endpoint.connection();
    }

    boolean persistent() {
        return endpoint.connection().isPersistent();
    }

    int batchSize() {
        return batch.size();
    }

    Wakes wakes() {
        return wakes;
    }

    /** The session of the message being handled (after the handshake, the new one); null if none. */
    SessionImpl session() {
        return session;
    }

    void session(SessionImpl session) {
        this.session = session;
    }

    /** Adds a reply to the current message, after the outgoing extensions (which may drop it). */
    void reply(MessageImpl reply) {
        reply.setAssociated(current);
        MessageImpl outgoing = extensions.outgoing(null, session, reply);
        if (outgoing != null) {
            replies.add(outgoing);
        }
    }

    /** Adds messages that have already been through the outgoing extensions (a connect reply and what it carries). */
    void replies(List<Message> messages) {
        replies.addAll(messages);
    }

    /** The current message is a {@code /meta/connect} that the session holds; it will be answered later. */
    void held() {
        held = true;
    }

    /** Handles messages until one finishes asynchronously (its completion resumes here) or the batch ends. */
    void run() {
        while (index < batch.size()) {
            current = (MessageImpl) batch.get(index++);
            session = null;
            state.set(HANDLING);
            try {
                dispatcher.dispatch(this, current, step);
            } catch (RuntimeException x) {
                failCurrent(x);
            }
            if (state.compareAndSet(HANDLING, RETURNED)) {
                return;
            }
        }
        endpoint.batchDone(replies, held);
        wakes.wakeAll();
    }

    private void stepDone() {
        if (!state.compareAndSet(HANDLING, COMPLETED)) {
            run();
        }
    }

    private void stepFailed(Throwable failure) {
        failCurrent(failure);
        stepDone();
    }

    private void failCurrent(Throwable failure) {
        // A bug, not bad input: the client learns only that its message failed; the log has the details.
        LOG.warn("failed to handle {} from {}", current.getChannel(), connection(), failure);
        reply(Replies.error(current, SERVER_ERROR));
        state.compareAndSet(HANDLING, COMPLETED);
    }
}
