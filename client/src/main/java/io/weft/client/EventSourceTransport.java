package io.weft.client;

import io.weft.bayeux.Message;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpStatus;

/**
 * The {@code eventsource} connection type, as a browser's client speaks it: every batch goes up by POST as on
 * long-polling, and the session's messages, {@code /meta/connect} replies among them, come down one Server-Sent
 * Events stream ({@code GET url?clientId=...}), opened before the session's first connect is sent and again, with
 * {@code Last-Event-ID}, before the first connect after it ended. Persistent for the client: a connect's reply comes
 * apart from its request, so replies are timed by the client, and a stream that ends fails the connect it carried.
 */
final class EventSourceTransport implements ClientTransport {
    static final String NAME = "eventsource";
    /** How long the stream may be silent: the server writes at least a heartbeat every 15 s by default. */
    private static final long STREAM_IDLE_MILLIS = 60_000;

    private final HttpClient http;
    private final Context context;
    private final URI uri;
    private final LongPollingTransport uplink;
    private final Object lock = new Object();
    /** The stream now open or opening, or null; guarded by {@link #lock}. */
    private Stream stream;
    /**
     * The id of the last event received that had one, and the session whose stream it came on: sent back when that
     * session's stream is reopened, never to another session's. Guarded by {@link #lock}.
     */
    private String lastEventId;
    private String lastEventClientId;

    EventSourceTransport(HttpClient http, Context context) {
        this.http = http;
        this.context = context;
        this.uri = URI.create(context.url());
        this.uplink = new LongPollingTransport(http, new Context(context.url(), context.cookies(), new Uplink(),
                context.maxMessageSize()));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean isPersistent() {
        return true;
    }

    @Override
    public void send(List<Message.Mutable> batch, long timeoutMillis) {
        String clientId = connectingClientId(batch);
        if (clientId == null) {
            uplink.send(batch, timeoutMillis);
            return;
        }
        Stream open = stream(clientId);
        open.whenOpen(batch, () -> {
            open.lastConnect = batch;
            uplink.send(batch, timeoutMillis);
        });
    }

    private static String connectingClientId(List<Message.Mutable> batch) {
        for (Message.Mutable message : batch) {
            if (Message.META_CONNECT.equals(message.getChannel()) && message.getClientId() != null) {
                return message.getClientId();
            }
        }
        return null;
    }

    /** The open (or opening) stream of {@code clientId}, opened now if there is none. */
    private Stream stream(String clientId) {
        Stream previous;
        Stream opened;
        synchronized (lock) {
            if (stream != null && stream.clientId.equals(clientId)) {
                return stream;
            }
            previous = stream;
            String resumeAfter = clientId.equals(lastEventClientId) ? lastEventId : null;
            opened = new Stream(clientId, resumeAfter);
            stream = opened;
        }
        if (previous != null) {
            previous.abort(new IOException("a stream for another session"));
        }
        opened.open();
        return opened;
    }

    @Override
    public void close() {
        Stream current;
        synchronized (lock) {
            current = stream;
            stream = null;
        }
        if (current != null) {
            current.abort(new IOException("transport closed"));
        }
        uplink.close();
    }

    /** The uplink's POSTs report as this transport; their answers need not carry every reply (a connect's is apart). */
    private final class Uplink implements Receiver {
        @Override
        public void onMessages(ClientTransport transport, List<Message.Mutable> messages,
                List<Message.Mutable> request) {
            context.receiver().onMessages(EventSourceTransport.this, messages, null);
        }

        @Override
        public void onFailure(ClientTransport transport, List<Message.Mutable> batch, Throwable cause) {
            context.receiver().onFailure(EventSourceTransport.this, batch, cause);
        }

        @Override
        public void onClosed(ClientTransport transport, Throwable cause) {
            // a POST has no connection of its own to close
        }
    }

    /** One stream: the GET, its events as they arrive, and the batches waiting for it to open. */
    private final class Stream implements Response.Listener {
        final String clientId;
        private final Request request;
        private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
        /** Guarded by this: null once open (or failed); the batches to send once it is. */
        private List<Runnable> waiting = new ArrayList<>(1);
        private List<List<Message.Mutable>> waitingBatches = new ArrayList<>(1);
        private Throwable failed;
        /** The last batch with a {@code /meta/connect} sent for this stream: its reply is lost if the stream ends. */
        volatile List<Message.Mutable> lastConnect;

        Stream(String clientId, String resumeAfter) {
            this.clientId = clientId;
            this.request = http.newRequest(uri).method(HttpMethod.GET).param("clientId", clientId)
                    .followRedirects(false).idleTimeout(STREAM_IDLE_MILLIS, TimeUnit.MILLISECONDS);
            request.headers(headers -> {
                headers.put(HttpHeader.ACCEPT, "text/event-stream");
                String cookie = context.cookies().header(uri);
                if (cookie != null) {
                    headers.put(HttpHeader.COOKIE, cookie);
                }
                if (resumeAfter != null) {
                    headers.put("Last-Event-ID", resumeAfter);
                }
            });
        }

        void open() {
            request.send(this);
        }

        /** Runs {@code send} once the stream is open; fails {@code batch} if it cannot open. */
        void whenOpen(List<Message.Mutable> batch, Runnable send) {
            Throwable failure;
            synchronized (this) {
                failure = failed;
                if (failure == null && waiting != null) {
                    waiting.add(send);
                    waitingBatches.add(batch);
                    return;
                }
            }
            if (failure != null) {
                context.receiver().onFailure(EventSourceTransport.this, batch, failure);
            } else {
                send.run();
            }
        }

        void abort(Throwable cause) {
            request.abort(cause);
        }

        @Override
        public void onHeaders(Response response) {
            if (response.getStatus() != HttpStatus.OK_200) {
                response.abort(new IOException("HTTP " + response.getStatus() + " for the event stream"));
                return;
            }
            List<Runnable> sends;
            synchronized (this) {
                sends = waiting;
                waiting = null;
                waitingBatches = null;
            }
            if (sends != null) {
                sends.forEach(Runnable::run);
            }
        }

        @Override
        public void onContent(Response response, ByteBuffer content) {
            List<byte[]> events = new ArrayList<>(1);
            synchronized (pending) {
                while (content.hasRemaining()) {
                    pending.write(content.get());
                }
                if (pending.size() > context.maxMessageSize() + 64) {
                    response.abort(new IOException("an event larger than " + context.maxMessageSize() + " bytes"));
                    return;
                }
                byte[] bytes = pending.toByteArray();
                int start = 0;
                for (int i = 0; i + 1 < bytes.length; i++) {
                    if (bytes[i] == '\n' && bytes[i + 1] == '\n') {
                        byte[] event = new byte[i - start];
                        System.arraycopy(bytes, start, event, 0, event.length);
                        events.add(event);
                        start = i + 2;
                        i++;
                    }
                }
                pending.reset();
                pending.write(bytes, start, bytes.length - start);
            }
            for (byte[] event : events) {
                dispatch(response, new String(event, StandardCharsets.UTF_8));
            }
        }

        /** One event: comments skipped, {@code id:} kept, {@code data:} lines joined and decoded as a batch. */
        private void dispatch(Response response, String event) {
            StringBuilder data = null;
            for (String line : event.split("\n", -1)) {
                if (line.startsWith("id:")) {
                    synchronized (lock) {
                        lastEventId = line.substring(3).strip();
                        lastEventClientId = clientId;
                    }
                } else if (line.startsWith("data:")) {
                    String value = line.startsWith("data: ") ? line.substring(6) : line.substring(5);
                    data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
                }
            }
            if (data == null) {
                return;
            }
            List<Message.Mutable> messages;
            try {
                messages = Messages.decode(data.toString());
            } catch (IOException x) {
                response.abort(x);
                return;
            }
            for (Message.Mutable message : messages) {
                if (Message.META_CONNECT.equals(message.getChannel()) && message.getId() == null
                        && !message.isSuccessful()) {
                    // No session for this stream: it ends here, and nothing of it is resumed.
                    synchronized (lock) {
                        lastEventId = null;
                        lastEventClientId = null;
                    }
                }
            }
            context.receiver().onMessages(EventSourceTransport.this, messages, null);
        }

        @Override
        public void onComplete(Result result) {
            Throwable cause = result.isFailed() ? result.getFailure() : new IOException("the event stream ended");
            List<List<Message.Mutable>> unsent;
            boolean current;
            synchronized (this) {
                failed = cause;
                unsent = waitingBatches;
                waiting = null;
                waitingBatches = null;
            }
            synchronized (lock) {
                current = stream == this;
                if (current) {
                    stream = null;
                }
            }
            if (unsent != null) {
                for (List<Message.Mutable> batch : unsent) {
                    context.receiver().onFailure(EventSourceTransport.this, batch, cause);
                }
            }
            // Only the connect waits for this stream; the other replies come in their POSTs' answers.
            List<Message.Mutable> connect = lastConnect;
            if (current && connect != null) {
                context.receiver().onFailure(EventSourceTransport.this, connect, cause);
            }
        }
    }
}
