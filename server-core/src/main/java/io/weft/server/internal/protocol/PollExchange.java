package io.weft.server.internal.protocol;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.internal.session.SessionImpl;
import io.weft.server.spi.Connection;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One HTTP request: one batch in, exactly one response out, now or when its held {@code /meta/connect} ends. */
final class PollExchange implements Endpoint {
    private static final Logger LOG = LoggerFactory.getLogger(PollExchange.class);

    private final EngineImpl engine;
    private final Connection connection;
    private final AtomicBoolean sent = new AtomicBoolean();
    private volatile SessionImpl session;

    PollExchange(EngineImpl engine, Connection connection) {
        this.engine = engine;
        this.connection = connection;
    }

    @Override
    public Connection connection() {
        return connection;
    }

    @Override
    public void receive(List<Message.Mutable> batch, Promise<Void> processed) {
        engine.process(this, batch, processed);
    }

    @Override
    public void bind(SessionImpl session) {
        this.session = session;
    }

    @Override
    public void batchDone(List<Message> replies, boolean held, Promise<Void> processed) {
        if (held) {
            processed.succeed(null);
        } else {
            send(replies, processed);
        }
    }

    /** The response not sent yet asks the client to close its connection (the server is draining). */
    @Override
    public void goAway() {
        if (!sent.get()) {
            connection.goAway();
        }
    }

    @Override
    public void deliver(List<Message> messages) {
        send(messages, Promise.noop());
    }

    private void send(List<Message> messages, Promise<Void> written) {
        if (!sent.compareAndSet(false, true)) {
            LOG.debug("response already sent on {}; dropping {} messages", connection, messages.size());
            written.fail(new IllegalStateException("response already sent"));
            return;
        }
        Promise<Void> sent = Promise.from(written::succeed, failure -> {
            LOG.debug("response not written on {}: {}", connection, failure.toString());
            written.fail(failure);
        });
        try {
            engine.counters().written(connection.type(), messages);
            connection.send(messages, sent);
        } catch (Throwable x) {
            // A transport must fail the promise, not throw: whoever answered this exchange must not fail with it.
            sent.fail(x);
        }
    }

    @Override
    public void closed() {
        SessionImpl bound = session;
        if (bound != null && !sent.get()) {
            bound.detach(this);
        }
    }
}
