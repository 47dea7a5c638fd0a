package io.weft.transport.longpoll;

import io.weft.bayeux.Promise;
import io.weft.server.api.ClientRequest;
import io.weft.server.spi.Addresses;
import io.weft.server.spi.Origins;
import io.weft.server.spi.RequestSnapshot;
import io.weft.transport.common.HttpExchange;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link HttpExchange} over an asynchronous Servlet request (Servlet 6.0 API only): a {@link ReadListener} reads,
 * {@link ServletOutput} writes through a {@code WriteListener} (a whole response, or a stream's chunks), an {@link
 * AsyncListener} notices a client that goes away, helped on Jetty by the {@link ParkedConnectionWatch} and elsewhere,
 * for held requests, by the {@link HeldResponseHeartbeats}.
 */
final class ServletExchange implements HttpExchange {
    private static final Logger LOG = LoggerFactory.getLogger(ServletExchange.class);
    private static final int READ_BUFFER = 4096;
    /** A held response's heartbeat: white space ahead of its JSON (or script). */
    private static final byte[] SPACE = {' '};
    /** A stream's: an empty line between events, which an event stream's reader skips. */
    private static final byte[] NEWLINE = {'\n'};

    private final HttpServletRequest request;
    private final HttpServletResponse response;
    private final AsyncContext async;
    private final ScheduledExecutorService timer;
    private final long stallMillis;
    private final HeldResponseHeartbeats heartbeats;
    private final AtomicBoolean ended = new AtomicBoolean();
    /** Whether the exchange has been answered or aborted: the first {@code respond} or {@code abort} wins. */
    private final AtomicBoolean done = new AtomicBoolean();
    private final Supplier<Runnable> watcher;
    private volatile Reader reader;
    private volatile Consumer<Throwable> gone;
    private Runnable stopWatching;
    private boolean watchEnded;
    private final ServletOutput output;
    /** Whether heartbeats have started the response ahead of its answer (it is then 200, chunked); guarded by this. */
    private boolean beating;
    /** Whether the response is a stream ({@link #streaming}); guarded by this. */
    private boolean streaming;
    /** Whether the status is set and the head may have gone (a stream's first write, or a heartbeat); guarded by this. */
    private boolean headSent;

    /**
     * @param watcher starts watching the connection for a client that closes it, returning how to stop; null when
     *     the container offers no way (see {@link ParkedConnectionWatch#watcher(jakarta.servlet.ServletRequest)})
     * @param timer the servlet's timer: streams' heartbeats, stalled writes, held responses' heartbeats
     * @param stallMillis how long a write may take to be taken by the container before the response is given up
     * @param heartbeats what watches held requests where there is no {@code watcher}
     */
    ServletExchange(HttpServletRequest request, HttpServletResponse response, AsyncContext async,
            Supplier<Runnable> watcher, ScheduledExecutorService timer, long stallMillis,
            HeldResponseHeartbeats heartbeats) {
        this.request = request;
        this.response = response;
        this.async = async;
        this.watcher = watcher;
        this.timer = timer;
        this.stallMillis = stallMillis;
        this.heartbeats = heartbeats;
        ServletOutputStream out;
        try {
            out = response.getOutputStream();
        } catch (IOException x) {
            throw new IllegalStateException("the response has no output stream", x);
        }
        this.output = new ServletOutput(out, timer, stallMillis, this::completeNow);
        async.addListener(new Failures());
        // On the request's thread: from another, Tomcat would take the connection's lock to set it.
        output.install();
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String header(String name) {
        return request.getHeader(name);
    }

    @Override
    public List<String> headers(String name) {
        return Collections.list(request.getHeaders(name));
    }

    @Override
    public String query() {
        return request.getQueryString();
    }

    @Override
    public String pathInMount() {
        String path = request.getPathInfo();
        return path == null || path.equals("/") ? "" : path;
    }

    @Override
    public String serverOrigin() {
        return Origins.of(request.getScheme(), request.getServerName(), request.getServerPort());
    }

    @Override
    public boolean isSecure() {
        return request.isSecure();
    }

    @Override
    public boolean multiplexed() {
        String protocol = request.getProtocol();
        return protocol != null && (protocol.startsWith("HTTP/2") || protocol.startsWith("HTTP/3"));
    }

    @Override
    public InetAddress remoteAddress() {
        return Addresses.literal(request.getRemoteAddr());
    }

    @Override
    public ClientRequest snapshot() {
        RequestSnapshot.Builder copy = RequestSnapshot.builder();
        for (String name : Collections.list(request.getHeaderNames())) {
            for (String value : Collections.list(request.getHeaders(name))) {
                copy.header(name, value);
            }
        }
        InetAddress address = remoteAddress();
        if (address != null) {
            copy.remoteAddress(new InetSocketAddress(address, request.getRemotePort()));
        }
        copy.userPrincipal(request.getUserPrincipal());
        HttpSession session = request.getSession(false);
        if (session != null) {
            copy.httpSession(session.getId(), name -> {
                try {
                    return session.getAttribute(name);
                } catch (IllegalStateException ended) {
                    return null;
                }
            });
        }
        return copy.secure(request.isSecure()).build();
    }

    @Override
    public long contentLength() {
        return request.getContentLengthLong();
    }

    /**
     * The Servlet API has no timer: the deadline is kept by the exchange's async timeout, which {@link
     * LongPollingServlet} sets to the whole exchange's budget (body, hold and grace); a timeout while the body is read
     * fails the read with a {@link TimeoutException}.
     */
    @Override
    public void readBody(BodySink sink, long deadlineMillis) {
        try {
            ServletInputStream in = request.getInputStream();
            Reader body = new Reader(in, sink, contentLength());
            reader = body;
            in.setReadListener(body);
        } catch (IOException | RuntimeException x) {
            sink.onFailure(x);
        }
    }

    @Override
    public void onClientGone(Consumer<Throwable> gone) {
        this.gone = gone;
    }

    /**
     * The container's failures and the exchange's deadline: while the body is read they go to the reader (a timeout
     * is then answered 408 by the transport), later to the "client gone" listener. Either way the exchange is
     * completed before the callback returns (waiting for a thread that is writing to stop): the container would
     * otherwise end it by itself (a 500 for a timeout) and recycle the response under that thread.
     */
    private final class Failures implements AsyncListener {
        @Override
        public void onError(AsyncEvent event) {
            failed(event.getThrowable());
            complete();
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            failed(new TimeoutException("the exchange's deadline passed"));
            complete();
        }

        private void failed(Throwable failure) {
            Consumer<Throwable> listener = gone;
            Reader body = reader;
            if (listener != null) {
                listener.accept(failure);
            } else if (body != null && body.fail(failure)) {
                return;
            } else {
                abort(failure);
            }
        }

        @Override
        public void onComplete(AsyncEvent event) {
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
        }
    }

    /**
     * The Servlet API has no control over the connection's idle timeout (see the README): this only watches, with
     * Jetty's {@link ParkedConnectionWatch} where it can, else over HTTP/1 with heartbeats ahead of the response.
     */
    @Override
    public void parked(long millis) {
        watch();
    }

    /** A stream has no deadline: the async timeout is lifted (its writes have theirs: {@code stallMillis}). */
    @Override
    public void streaming() {
        synchronized (this) {
            streaming = true;
        }
        async.setTimeout(0);
        watch();
    }

    private void watch() {
        synchronized (this) {
            if (watchEnded || stopWatching != null) {
                return;
            }
            if (watcher != null) {
                stopWatching = watcher.get();
                return;
            }
            if (heartbeats == null || multiplexed()) {
                // HTTP/2 and later: the container reports a client's reset itself.
                return;
            }
            stopWatching = () -> heartbeats.remove(this);
        }
        heartbeats.add(this);
    }

    /**
     * Called by {@link HeldResponseHeartbeats} once a second while the request is held or streams: a space ahead of a
     * held response, an empty line between a stream's events, unless a write is under way. A write that fails means
     * the client has gone.
     */
    void heartbeat() {
        byte[] beat;
        synchronized (this) {
            if (watchEnded) {
                return;
            }
            beating = true;
            if (!headSent) {
                // Committed by the first byte: a held request's answer is always 200 with its type set, as a stream's.
                headSent = true;
                response.setStatus(200);
            }
            beat = streaming ? NEWLINE : SPACE;
        }
        output.writeIfIdle(beat, Promise.from(ok -> { }, this::heartbeatFailed));
    }

    private void heartbeatFailed(Throwable failure) {
        LOG.debug("a heartbeat could not be written: the client has gone ({})", failure.toString());
        Consumer<Throwable> listener = gone;
        if (listener != null) {
            listener.accept(failure);
        } else {
            abort(failure);
        }
    }

    /** Marks the exchange ended and stops the watch, which never probes once the response may be under way. */
    private void end() {
        Runnable stop;
        synchronized (this) {
            watchEnded = true;
            stop = stopWatching;
            stopWatching = null;
        }
        if (stop != null) {
            stop.run();
        }
    }

    @Override
    public void addHeader(String name, String value) {
        response.addHeader(name, value);
    }

    @Override
    public void respond(int status, String contentType, byte[] body, Promise<Void> written) {
        if (!done.compareAndSet(false, true)) {
            written.fail(new IllegalStateException("the exchange was answered already"));
            return;
        }
        end();
        boolean committed;
        try {
            synchronized (this) {
                committed = beating;
                if (!committed) {
                    response.setStatus(status);
                    if (contentType != null) {
                        response.setContentType(contentType);
                    }
                    response.setContentLength(body.length);
                }
            }
        } catch (RuntimeException x) {
            finish(written, x);
            return;
        }
        if (committed && status != 200) {
            // Heartbeats have sent the head already (200): a refusal now can only end the response.
            finish(written, new IllegalStateException("answered " + status + " after the response had started"));
            return;
        }
        output.write(body, true, Promise.from(written::succeed, failure -> finish(written, failure)));
    }

    @Override
    public boolean streams() {
        return true;
    }

    @Override
    public void write(byte[] chunk, boolean last, Promise<Void> written) {
        if (done.get() || (last && !done.compareAndSet(false, true))) {
            written.fail(new IllegalStateException("the exchange was answered already"));
            return;
        }
        if (last) {
            end();
        }
        synchronized (this) {
            if (!headSent) {
                headSent = true;
                response.setStatus(200);
            }
        }
        output.write(chunk, last, Promise.from(written::succeed, failure -> {
            // The last write's exchange is this write's to end; an earlier one's, unless an abort ended it first.
            if (last || done.compareAndSet(false, true)) {
                end();
                finish(Promise.noop(), failure);
            }
            written.fail(failure);
        }));
    }

    @Override
    public Runnable schedule(Runnable task, long millis) {
        try {
            ScheduledFuture<?> scheduled = timer.schedule(task, millis, TimeUnit.MILLISECONDS);
            return () -> scheduled.cancel(false);
        } catch (RejectedExecutionException stopping) {
            return () -> { };
        }
    }

    @Override
    public void abort(Throwable cause) {
        boolean committed;
        synchronized (this) {
            committed = beating || streaming;
        }
        if (cause instanceof TimeoutException && !committed) {
            // The exchange's deadline, not a client that went away: it can still be told, and must not be left to
            // the container's error dispatch (a 500).
            respond(408, "text/plain;charset=UTF-8", "request not answered within its deadline\n"
                    .getBytes(StandardCharsets.UTF_8), Promise.noop());
            return;
        }
        if (!done.compareAndSet(false, true)) {
            return;
        }
        end();
        output.fail(cause);
        finish(Promise.noop(), cause);
    }

    private void finish(Promise<Void> written, Throwable failure) {
        complete();
        if (failure == null) {
            written.succeed(null);
        } else {
            written.fail(failure);
        }
    }

    /**
     * Completes the async exchange, once, through the output: once no thread is using the response any more (the
     * container may recycle it at once).
     */
    private void complete() {
        output.close();
    }

    private void completeNow() {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        try {
            async.complete();
        } catch (IllegalStateException x) {
            LOG.debug("exchange already completed by the container: {}", x.toString());
        }
    }

    /**
     * Reads while the container has bytes ready; the buffer is dropped as soon as reading stops. The container calls
     * it on its threads, one at a time; {@link #fail} may come from another.
     */
    private static final class Reader implements ReadListener {
        private final ServletInputStream in;
        private final BodySink sink;
        private byte[] buffer;

        Reader(ServletInputStream in, BodySink sink, long expected) {
            this.in = in;
            this.sink = sink;
            this.buffer = new byte[(int) (expected >= 0 ? Math.min(expected + 1, READ_BUFFER) : READ_BUFFER)];
        }

        @Override
        public synchronized void onDataAvailable() throws IOException {
            while (buffer != null && in.isReady()) {
                int read = in.read(buffer);
                if (read < 0) {
                    return;
                }
                if (read > 0 && !sink.onData(ByteBuffer.wrap(buffer, 0, read))) {
                    buffer = null;
                }
            }
        }

        @Override
        public synchronized void onAllDataRead() {
            if (buffer != null) {
                buffer = null;
                sink.onEnd();
            }
        }

        @Override
        public void onError(Throwable failure) {
            fail(failure);
        }

        /** Ends reading with a failure; false if reading had already ended. */
        synchronized boolean fail(Throwable failure) {
            if (buffer == null) {
                return false;
            }
            buffer = null;
            sink.onFailure(failure);
            return true;
        }
    }
}
