package io.weft.server.internal.protocol;

import io.weft.bayeux.BayeuxError;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.bayeux.internal.MessageImpl;
import io.weft.server.internal.app.ExtensionChain;
import io.weft.server.internal.delivery.Wakes;
import io.weft.server.internal.reply.Replies;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.internal.util.Steps;
import io.weft.server.spi.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processing of one batch: its messages one after the other (a handler may finish later, on another thread;
 * the loop then continues there), its replies in order, and the sessions to wake once at the end. Whatever a handler
 * throws, {@code Error}s included, ends as a {@code 500::server_error} reply to that message, never as a batch left
 * unanswered.
 */
final class BatchRun extends Steps {
    private static final Logger LOG = LoggerFactory.getLogger(BatchRun.class);

    private final Dispatcher dispatcher;
    private final ExtensionChain extensions;
    private final Endpoint endpoint;
    private final List<Message.Mutable> batch;
    private final Promise<Void> processed;
    private final List<Message> replies;
    private final Wakes wakes = new Wakes();
    private int index;
    private MessageImpl current;
    private SessionImpl session;
    private volatile boolean held;

    BatchRun(Dispatcher dispatcher, ExtensionChain extensions, Endpoint endpoint, List<Message.Mutable> batch,
            Promise<Void> processed) {
        this.dispatcher = dispatcher;
        this.extensions = extensions;
        this.endpoint = endpoint;
        this.batch = batch;
        this.processed = processed;
        this.replies = new ArrayList<>(batch.size() + 2);
    }

    Endpoint endpoint() {
        return endpoint;
    }

    Connection connection() {
        return endpoint.connection();
    }

    /** Whether the batch comes from server code (a local session), which no client bound applies to. */
    boolean local() {
        return endpoint.local();
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

    /** Handles the batch: messages until one finishes asynchronously (its completion resumes the loop) or none is left. */
    void start() {
        run();
    }

    @Override
    protected boolean startNext() {
        if (index == batch.size()) {
            carryQueue();
            endpoint.batchDone(replies, held, processed);
            wakes.wakeAll();
            return false;
        }
        current = (MessageImpl) batch.get(index++);
        session = null;
        Handled handled = new Handled();
        try {
            dispatcher.dispatch(this, current, handled);
        } catch (Throwable x) {
            handled.fail(x);
        }
        return true;
    }

    /**
     * A polling client's batch without a {@code /meta/connect} (its publishes, say) is answered with what was queued
     * for its session meanwhile, ahead of the replies, as Bayeux allows any response to carry messages: the client's
     * own copy of what it published then costs it no answer to its held poll and no new poll. The session's held poll
     * stays held; the wake at the end of this batch finds nothing left for it.
     */
    private void carryQueue() {
        if (held || session == null || endpoint.local() || endpoint.connection().isPersistent()) {
            return;
        }
        for (Message.Mutable message : batch) {
            if (Message.META_CONNECT.equals(message.getChannel())) {
                return;
            }
        }
        List<Message> queued = session.drainForReply();
        if (!queued.isEmpty()) {
            replies.addAll(0, queued);
        }
    }

    /** The end of one message's handling; the first completion counts, so a handler that throws late is harmless. */
    private final class Handled implements Promise<Void> {
        private final AtomicBoolean done = new AtomicBoolean();

        @Override
        public void succeed(Void result) {
            if (done.compareAndSet(false, true)) {
                next();
            }
        }

        @Override
        public void fail(Throwable failure) {
            if (done.compareAndSet(false, true)) {
                // A bug, not bad input: the client learns only that its message failed; the log has the details.
                LOG.warn("failed to handle {} from {}", current.getChannel(), connection(), failure);
                reply(Replies.error(current, BayeuxError.SERVER_ERROR));
                next();
            }
        }
    }
}
