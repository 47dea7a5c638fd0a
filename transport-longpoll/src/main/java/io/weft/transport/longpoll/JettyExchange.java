package io.weft.transport.longpoll;

import io.weft.bayeux.Promise;
import io.weft.server.api.ClientRequest;
import io.weft.server.spi.Addresses;
import io.weft.server.spi.Origins;
import io.weft.server.spi.RequestSnapshot;
import io.weft.transport.common.HttpExchange;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Session;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.thread.Invocable;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * {@link HttpExchange} over a Jetty 12 core request: demand-driven reads, one asynchronous write, failure listeners and
 * (on HTTP/1) the {@link ParkedConnectionWatch} for a client that goes away.
 */
final class JettyExchange implements HttpExchange {
    private final Request request;
    private final Response response;
    private final Callback callback;
    private final ParkedConnectionWatch watch;
    private BodySink sink;
    /** Whether the body has been read whole or given up on (by failure, refusal or its deadline); first wins. */
    private final AtomicBoolean bodyOver = new AtomicBoolean();
    private volatile Scheduler.Task bodyDeadline;
    /** Whether the exchange has been answered or aborted: the first {@code respond} or {@code abort} wins. */
    private final AtomicBoolean done = new AtomicBoolean();
    private ParkedConnectionWatch.Probe probe;
    private boolean ended;

    JettyExchange(Request request, Response response, Callback callback, ParkedConnectionWatch watch) {
        this.request = request;
        this.response = response;
        this.callback = callback;
        this.watch = watch;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String header(String name) {
        return request.getHeaders().get(name);
    }

    @Override
    public List<String> headers(String name) {
        return request.getHeaders().getValuesList(name);
    }

    @Override
    public String query() {
        return request.getHttpURI().getQuery();
    }

    @Override
    public String pathInMount() {
        String path = Request.getPathInContext(request);
        return path == null || path.equals("/") ? "" : path;
    }

    @Override
    public String serverOrigin() {
        return Origins.of(request.getHttpURI().getScheme(), Request.getServerName(request),
                Request.getServerPort(request));
    }

    @Override
    public boolean isSecure() {
        return request.isSecure();
    }

    @Override
    public boolean multiplexed() {
        return request.getConnectionMetaData().getHttpVersion().getVersion() >= HttpVersion.HTTP_2.getVersion();
    }

    @Override
    public InetAddress remoteAddress() {
        return Addresses.of(request.getConnectionMetaData().getRemoteSocketAddress());
    }

    @Override
    public ClientRequest snapshot() {
        RequestSnapshot.Builder copy = RequestSnapshot.builder();
        for (HttpField field : request.getHeaders()) {
            copy.header(field.getName(), field.getValue());
        }
        if (request.getConnectionMetaData().getRemoteSocketAddress() instanceof InetSocketAddress address) {
            copy.remoteAddress(address);
        }
        Request.AuthenticationState authentication = Request.getAuthenticationState(request);
        if (authentication != null) {
            copy.userPrincipal(authentication.getUserPrincipal());
        }
        Session session = request.getSession(false);
        if (session != null) {
            copy.httpSession(session.getId(), name -> session.isValid() ? session.getAttribute(name) : null);
        }
        return copy.secure(request.isSecure()).build();
    }

    @Override
    public long contentLength() {
        return request.getLength();
    }

    @Override
    public void readBody(BodySink sink, long deadlineMillis) {
        this.sink = sink;
        try {
            bodyDeadline = request.getComponents().getScheduler().schedule(() -> {
                if (bodyOver.compareAndSet(false, true)) {
                    sink.onFailure(new TimeoutException("request body not received within " + deadlineMillis + " ms"));
                }
            }, deadlineMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            // The server is stopping: the connection's own idle timeout still bounds the read.
        }
        read();
    }

    /** Reads what is available; when nothing is, asks to be called back once more content arrives. */
    private void read() {
        while (true) {
            Content.Chunk chunk = request.read();
            if (chunk == null) {
                if (!bodyOver.get()) {
                    request.demand(this::read);
                }
                return;
            }
            if (bodyOver.get()) {
                chunk.release();
                return;
            }
            if (Content.Chunk.isFailure(chunk)) {
                if (finishBody()) {
                    sink.onFailure(chunk.getFailure());
                }
                return;
            }
            boolean more = !chunk.hasRemaining() || sink.onData(chunk.getByteBuffer());
            boolean last = chunk.isLast();
            chunk.release();
            if (!more) {
                finishBody();
                return;
            }
            if (last) {
                if (finishBody()) {
                    sink.onEnd();
                }
                return;
            }
        }
    }

    /** Ends reading the body, if its deadline has not: false when the deadline came first (it told the sink). */
    private boolean finishBody() {
        Scheduler.Task deadline = bodyDeadline;
        if (deadline != null) {
            deadline.cancel();
        }
        return bodyOver.compareAndSet(false, true);
    }

    @Override
    public void onClientGone(Consumer<Throwable> gone) {
        request.addFailureListener(gone);
    }

    @Override
    public void parked(long millis) {
        long start = NanoTime.now();
        long limit = TimeUnit.MILLISECONDS.toNanos(millis);
        synchronized (this) {
            // Once the response has started the request may already be complete: nothing to add to it then.
            if (!ended) {
                // Jetty asks only while no read or write is pending; true lets the idle timeout fail the request.
                request.addIdleTimeoutListener(timeout -> NanoTime.since(start) > limit);
                probe = watch.watch(request);
            }
        }
    }

    /** A stream is watched as a parked request is, for as long as it lasts. */
    @Override
    public void streaming() {
        parked(Long.MAX_VALUE);
    }

    /** Marks the exchange ended and stops the watch, which never probes once the response may be under way. */
    private void end() {
        ParkedConnectionWatch.Probe watching;
        synchronized (this) {
            ended = true;
            watching = probe;
        }
        if (watching != null) {
            watching.stop();
        }
    }

    @Override
    public void addHeader(String name, String value) {
        response.getHeaders().add(name, value);
    }

    @Override
    public void respond(int status, String contentType, byte[] body, Promise<Void> written) {
        if (!done.compareAndSet(false, true)) {
            written.fail(new IllegalStateException("the exchange was answered already"));
            return;
        }
        end();
        response.setStatus(status);
        if (contentType != null) {
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        }
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), Callback.from(Invocable.InvocationType.NON_BLOCKING, () -> {
            callback.succeeded();
            written.succeed(null);
        }, failure -> {
            callback.failed(failure);
            written.fail(failure);
        }));
    }

    @Override
    public boolean streams() {
        return true;
    }

    @Override
    public void write(byte[] chunk, boolean last, Promise<Void> written) {
        if (done.get()) {
            written.fail(new IllegalStateException("the exchange was answered already"));
            return;
        }
        if (!response.isCommitted()) {
            response.setStatus(200);
        }
        if (last && !done.compareAndSet(false, true)) {
            written.fail(new IllegalStateException("the exchange was answered already"));
            return;
        }
        if (last) {
            end();
        }
        response.write(last, ByteBuffer.wrap(chunk), Callback.from(Invocable.InvocationType.NON_BLOCKING, () -> {
            if (last) {
                callback.succeeded();
            }
            written.succeed(null);
        }, failure -> {
            // The last write's exchange is this write's to end; an earlier one's, unless an abort ended it first.
            if (last || done.compareAndSet(false, true)) {
                end();
                callback.failed(failure);
            }
            written.fail(failure);
        }));
    }

    @Override
    public Runnable schedule(Runnable task, long millis) {
        try {
            Scheduler.Task scheduled = request.getComponents().getScheduler().schedule(task, millis,
                    TimeUnit.MILLISECONDS);
            return scheduled::cancel;
        } catch (RejectedExecutionException stopping) {
            return () -> { };
        }
    }

    @Override
    public void abort(Throwable cause) {
        if (!done.compareAndSet(false, true)) {
            return;
        }
        end();
        callback.failed(cause);
    }
}
