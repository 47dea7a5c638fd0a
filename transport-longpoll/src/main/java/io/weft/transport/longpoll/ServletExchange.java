package io.weft.transport.longpoll;

import io.weft.bayeux.Promise;
import io.weft.server.api.ClientRequest;
import io.weft.server.spi.Addresses;
import io.weft.server.spi.Origins;
import io.weft.server.spi.RequestSnapshot;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link HttpExchange} over an asynchronous Servlet request (Servlet 6.0 API only): a {@link ReadListener} reads,
 * a {@link WriteListener} writes, an {@link AsyncListener} notices a client that goes away (helped, on Jetty, by the
 * {@link ParkedConnectionWatch}).
 */
final class ServletExchange implements HttpExchange {
    private static final Logger LOG = LoggerFactory.getLogger(ServletExchange.class);
    private static final int READ_BUFFER = 4096;

    private final HttpServletRequest request;
    private final HttpServletResponse response;
    private final AsyncContext async;
    private final AtomicBoolean ended = new AtomicBoolean();
    /** Whether the exchange has been answered or aborted: the first {@code respond} or {@code abort} wins. */
    private final AtomicBoolean done = new AtomicBoolean();
    /** The thread running {@code onTimeout}, while it does: a response it makes is written at once. */
    private volatile Thread timingOut;
    private final Supplier<Runnable> watcher;
    private volatile Reader reader;
    private volatile Consumer<Throwable> gone;
    private Runnable stopWatching;
    private boolean watchEnded;

    /**
     * @param watcher starts watching the connection for a client that closes it, returning how to stop; null when
     *     the container offers no way (see {@link ParkedConnectionWatch#watcher(jakarta.servlet.ServletRequest)})
     */
    ServletExchange(HttpServletRequest request, HttpServletResponse response, AsyncContext async,
            Supplier<Runnable> watcher) {
        this.request = request;
        this.response = response;
        this.async = async;
        this.watcher = watcher;
        async.addListener(new Failures());
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
     * The container's failures (and timeouts, though the servlet sets none): while the body is read they go to the
     * reader (a timeout is then answered 408 by the transport), later to the "client gone" listener.
     */
    private final class Failures implements AsyncListener {
        @Override
        public void onError(AsyncEvent event) {
            failed(event.getThrowable());
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            TimeoutException timeout = new TimeoutException("the exchange's deadline passed");
            boolean responding = done.get();
            timingOut = Thread.currentThread();
            try {
                failed(timeout);
            } finally {
                timingOut = null;
            }
            // A response was under way (to a client that does not read it): the exchange ends here, since an async
            // timeout left incomplete becomes the container's error dispatch, a 500. Otherwise failed() answered 408.
            if (responding) {
                finish(Promise.noop(), timeout);
            }
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

    /** The Servlet API has no control over the connection's idle timeout (see the README): this only watches. */
    @Override
    public void parked(long millis) {
        if (watcher == null) {
            return;
        }
        synchronized (this) {
            if (!watchEnded) {
                stopWatching = watcher.get();
            }
        }
    }

    /** Marks the exchange ended and stops the watch, which never probes once the response may be under way. */
    private void end() {
        Runnable stop;
        synchronized (this) {
            watchEnded = true;
            stop = stopWatching;
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
        try {
            response.setStatus(status);
            if (contentType != null) {
                response.setContentType(contentType);
            }
            response.setContentLength(body.length);
            ServletOutputStream out = response.getOutputStream();
            if (timingOut == Thread.currentThread()) {
                // Inside onTimeout the exchange must be complete when it returns, or the container answers 500:
                // this short answer is written at once (the stream is not in non-blocking mode yet).
                out.write(body);
                finish(written, null);
            } else {
                out.setWriteListener(new Writer(out, body, written));
            }
        } catch (IOException | RuntimeException x) {
            finish(written, x);
        }
    }

    @Override
    public void abort(Throwable cause) {
        if (cause instanceof TimeoutException) {
            // The exchange's deadline, not a client that went away: it can still be told, and must not be left to
            // the container's error dispatch (a 500).
            respond(408, "text/plain;charset=UTF-8", "request not answered within its deadline\n"
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8), Promise.noop());
            return;
        }
        if (!done.compareAndSet(false, true)) {
            return;
        }
        end();
        finish(Promise.noop(), cause);
    }

    private void finish(Promise<Void> written, Throwable failure) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        try {
            async.complete();
        } catch (IllegalStateException x) {
            LOG.debug("exchange already completed by the container: {}", x.toString());
        }
        if (failure == null) {
            written.succeed(null);
        } else {
            written.fail(failure);
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

    /** Writes the whole body once the container allows, then completes the exchange. */
    private final class Writer implements WriteListener {
        private final ServletOutputStream out;
        private final Promise<Void> written;
        private byte[] body;

        Writer(ServletOutputStream out, byte[] body, Promise<Void> written) {
            this.out = out;
            this.body = body;
            this.written = written;
        }

        @Override
        public void onWritePossible() throws IOException {
            byte[] pending = body;
            if (pending != null) {
                body = null;
                out.write(pending);
                if (!out.isReady()) {
                    return;
                }
            }
            finish(written, null);
        }

        @Override
        public void onError(Throwable failure) {
            finish(written, failure);
        }
    }
}
