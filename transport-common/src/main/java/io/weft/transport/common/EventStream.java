package io.weft.transport.common;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.spi.Connection;
import io.weft.server.spi.Engine;
import io.weft.server.spi.Inbound;
import io.weft.server.spi.QuietLog;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code eventsource} stream as the engine sees it: a persistent {@link Connection} over one held GET, each
 * {@link #send} one Server-Sent Event whose data is the JSON array of the messages:
 *
 * <pre>
 * id: 7                       only on a /meta/connect reply carrying an acknowledgement batch id (ext.ack)
 * data: [{...},{...}]
 *
 * :                           a heartbeat comment, after eventSourceHeartbeat without a write
 * </pre>
 *
 * The engine has at most one send in flight; heartbeats and the closing comment take turns with it here, so the
 * exchange has one write at a time. A client that does not read stalls the write in flight: the engine's bounds
 * ({@code maxQueue}, {@code maxPendingFrames}) hold what waits for it, and the container's idle timeout fails the
 * stalled write, which ends the stream.
 */
final class EventStream implements Connection {
    static final String TYPE = "eventsource";
    static final String CONTENT_TYPE = "text/event-stream;charset=UTF-8";

    private static final Logger LOG = LoggerFactory.getLogger(EventStream.class);
    private static final QuietLog UNENCODABLE = new QuietLog(EventStream.class, "events that could not be encoded");
    private static final byte[] HEARTBEAT = ":\n\n".getBytes(StandardCharsets.US_ASCII);

    private final HttpExchange exchange;
    private final Engine engine;
    private final String browserId;
    private final long heartbeatMillis;
    private volatile Inbound inbound;

    // Guarded by this.
    private boolean writing;
    /** A send that arrived while a heartbeat was being written: started when it completes. */
    private byte[] waitingEvent;
    private Promise<Void> waitingWritten;
    /** Why the engine closed the stream; the closing comment is written once nothing else is. */
    private String closing;
    private boolean ended;
    private Runnable heartbeat;

    EventStream(HttpExchange exchange, Engine engine, String browserId) {
        this.exchange = exchange;
        this.engine = engine;
        this.browserId = browserId;
        this.heartbeatMillis = engine.options().eventSourceHeartbeat();
    }

    /** Opens the stream on the engine and sends the response's head with a first comment, which opens it client-side. */
    void start(String clientId, String lastEventId) {
        exchange.addHeader("Cache-Control", "no-store");
        // nginx buffers responses unless told otherwise; a buffered stream delivers nothing until the buffer fills.
        exchange.addHeader("X-Accel-Buffering", "no");
        exchange.addHeader("Content-Type", CONTENT_TYPE);
        exchange.onClientGone(this::clientGone);
        exchange.streaming();
        synchronized (this) {
            // What the engine sends while it opens the stream waits for the head: the client learns that the stream
            // is open only once the engine has attached it to the session.
            writing = true;
        }
        Inbound opened = engine.openStream(this, clientId, lastEventId);
        boolean gone;
        synchronized (this) {
            inbound = opened;
            gone = ended;
        }
        if (gone) {
            opened.closed();
            return;
        }
        exchange.write(HEARTBEAT, false, new Written(null));
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public boolean isPersistent() {
        return true;
    }

    @Override
    public String browserId() {
        return browserId;
    }

    @Override
    public InetAddress remoteAddress() {
        return exchange.remoteAddress();
    }

    @Override
    public void send(List<Message> messages, Promise<Void> written) {
        byte[] event;
        try {
            event = event(messages);
        } catch (Throwable x) {
            UNENCODABLE.log("could not encode an event on eventsource; the stream is closed: {}",
                    messages.size() + " messages", x);
            written.fail(x);
            close("an event could not be encoded");
            return;
        }
        engine.written(TYPE, event.length);
        synchronized (this) {
            if (ended || closing != null) {
                written.fail(new IllegalStateException("the stream has ended"));
                return;
            }
            if (writing) {
                waitingEvent = event;
                waitingWritten = written;
                return;
            }
            writing = true;
        }
        exchange.write(event, false, new Written(written));
    }

    /** {@code id:} (for a connect reply carrying an acknowledgement batch id), then the JSON array as data. */
    private byte[] event(List<Message> messages) {
        String id = null;
        Message last = messages.get(messages.size() - 1);
        if (Message.META_CONNECT.equals(last.getChannel()) && last.get(Message.EXT) instanceof Map<?, ?> ext
                && ext.get("ack") instanceof Number batch) {
            id = String.valueOf(batch.longValue());
        }
        byte[] json = engine.codec().encode(messages);
        String head = id == null ? "data: " : "id: " + id + "\ndata: ";
        byte[] event = new byte[head.length() + json.length + 2];
        byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(headBytes, 0, event, 0, headBytes.length);
        // The codec writes compact JSON: a line break can only be escaped inside a string, never raw.
        System.arraycopy(json, 0, event, headBytes.length, json.length);
        event[event.length - 2] = '\n';
        event[event.length - 1] = '\n';
        return event;
    }

    /** The server is draining: the stream ends, and the client opens its next one through its load balancer. */
    @Override
    public void goAway() {
        close("the server is draining");
    }

    /** The engine ends the stream ({@code reason}: replaced, its session ended, the client does not read). */
    @Override
    public void close(String reason) {
        LOG.debug("closing {}: {}", this, reason);
        synchronized (this) {
            if (ended || closing != null) {
                return;
            }
            closing = reason;
            if (writing) {
                return;
            }
            writing = true;
        }
        finish();
    }

    private void finish() {
        Runnable cancel;
        synchronized (this) {
            cancel = heartbeat;
            heartbeat = null;
        }
        if (cancel != null) {
            cancel.run();
        }
        byte[] comment = (": " + PollingTransport.oneLine(closing) + "\n\n").getBytes(StandardCharsets.UTF_8);
        exchange.write(comment, true, Promise.from(done -> ended(), failure -> ended()));
    }

    private void ended() {
        synchronized (this) {
            ended = true;
        }
        Inbound attached = inbound;
        if (attached != null) {
            attached.closed();
        }
    }

    /** A write completed: the next one (a waiting event, the closing comment), or the heartbeat's timer. */
    private void next() {
        byte[] event;
        Promise<Void> written;
        synchronized (this) {
            if (ended) {
                return;
            }
            if (waitingEvent != null) {
                event = waitingEvent;
                written = waitingWritten;
                waitingEvent = null;
                waitingWritten = null;
            } else if (closing != null) {
                event = null;
                written = null;
            } else {
                writing = false;
                armHeartbeat();
                return;
            }
        }
        if (event != null) {
            exchange.write(event, false, new Written(written));
        } else {
            finish();
        }
    }

    /** Under this: the heartbeat after {@code heartbeatMillis} without a write. */
    private void armHeartbeat() {
        if (heartbeat != null) {
            heartbeat.run();
        }
        heartbeat = exchange.schedule(this::beat, heartbeatMillis);
    }

    private void beat() {
        synchronized (this) {
            heartbeat = null;
            if (ended || writing || closing != null) {
                return;
            }
            writing = true;
        }
        exchange.write(HEARTBEAT, false, new Written(null));
    }

    /** The client went away: the engine is told, the exchange dropped. */
    void clientGone(Throwable cause) {
        Runnable cancel;
        Promise<Void> waiting;
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            cancel = heartbeat;
            heartbeat = null;
            waiting = waitingWritten;
            waitingEvent = null;
            waitingWritten = null;
        }
        if (cancel != null) {
            cancel.run();
        }
        if (waiting != null) {
            waiting.fail(cause);
        }
        Inbound attached = inbound;
        if (attached != null) {
            attached.closed();
        }
        exchange.abort(cause);
    }

    /** Completion of one write: tells the engine (for its sends), then takes the next turn. */
    private final class Written implements Promise<Void> {
        private final Promise<Void> engineWritten;

        Written(Promise<Void> engineWritten) {
            this.engineWritten = engineWritten;
        }

        @Override
        public void succeed(Void result) {
            if (engineWritten != null) {
                engineWritten.succeed(null);
            }
            next();
        }

        @Override
        public void fail(Throwable failure) {
            LOG.debug("write failed on {}: {}", EventStream.this, failure.toString());
            if (engineWritten != null) {
                engineWritten.fail(failure);
            }
            clientGone(failure);
        }
    }

    @Override
    public String toString() {
        return TYPE + "@" + Integer.toHexString(System.identityHashCode(this));
    }
}
