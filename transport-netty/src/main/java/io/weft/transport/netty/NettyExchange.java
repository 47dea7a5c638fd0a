package io.weft.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import io.weft.bayeux.Promise;
import io.weft.server.api.ClientRequest;
import io.weft.transport.common.Forwarded;
import io.weft.transport.common.HttpExchange;
import java.net.InetAddress;
import java.nio.channels.ClosedChannelException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * One HTTP request and its answer, as transport-common's polling transport sees them ({@link HttpExchange}). It only
 * translates: the request's parts, its body pieces to the transport's sink, and the transport's answer (whole, or
 * streamed) to Netty's response objects.
 *
 * <p>Threads: the transport may answer from any thread (a publish on another loop resuming a held connect); every
 * change of state is made on the connection's event loop (at once for a call made there: a task, and the lambda it
 * takes, only for a call from another thread), where the router also calls {@link #content} and {@link #gone}.
 * Ownership: the bytes the transport gives are wrapped, not copied, and belong to Netty once written; the body pieces
 * are the router's, read here and not kept.
 */
final class NettyExchange implements HttpExchange, HttpRouter.Target {
    private final HttpRouter router;
    private final ChannelHandlerContext ctx;
    private final HttpRequest request;
    private final String pathInMount;
    private final Mount mount;
    /** What a trusted proxy forwarded about the request; null for none (or a peer that is not one). */
    private final Forwarded forwarded;
    /**
     * The answer's headers, handed to the response object itself rather than copied into one of its own (an answer
     * carries no trailers: it shares Netty's empty ones). Validated as each is added, names and values: some echo the
     * request (a CORS origin, the headers a preflight asks for).
     */
    private final HttpHeaders responseHeaders = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    /** Answered (whole, or the stream's last part), or aborted: nothing more goes out. */
    private boolean done;
    private boolean headersSent;
    /** Whether the connection stays open once a streamed answer ends, as decided when its head was sent. */
    private boolean streamKeepAlive;
    private boolean waitsLong;
    private BodySink sink;
    private ScheduledFuture<?> bodyDeadline;
    /** Whether the body has been given to the sink whole, or given up on. */
    private boolean bodyOver;
    /** Body pieces that came before the transport asked for the body (it asks at once: a safeguard). */
    private CompositeByteBuf early;
    private boolean earlyEnded;
    private Consumer<Throwable> gone;

    NettyExchange(HttpRouter router, ChannelHandlerContext ctx, HttpRequest request, String pathInMount, Mount mount) {
        this.router = router;
        this.ctx = ctx;
        this.request = request;
        this.pathInMount = pathInMount;
        this.mount = mount;
        this.forwarded = Requests.forwarded(request, ctx.channel(), mount);
    }

    // ---- the request ----

    @Override
    public String method() {
        return request.method().name();
    }

    @Override
    public String header(String name) {
        return request.headers().get(name);
    }

    @Override
    public List<String> headers(String name) {
        return request.headers().getAll(name);
    }

    @Override
    public String query() {
        String uri = request.uri();
        int question = uri.indexOf('?');
        return question < 0 ? null : uri.substring(question + 1);
    }

    @Override
    public String pathInMount() {
        return pathInMount;
    }

    @Override
    public String serverOrigin() {
        // Behind a trusted proxy, each request's forwarded values: the connection's kept origin is for the others.
        return forwarded == null ? router.serverOrigin(request)
                : Requests.serverOrigin(request, ctx.channel(), mount, forwarded);
    }

    @Override
    public boolean isSecure() {
        return Requests.secure(mount, forwarded);
    }

    @Override
    public InetAddress remoteAddress() {
        return Requests.remoteAddress(ctx.channel(), forwarded);
    }

    @Override
    public ClientRequest snapshot() {
        return Requests.snapshot(request, ctx.channel(), mount, forwarded, Set.of());
    }

    @Override
    public long contentLength() {
        return HttpUtil.getContentLength(request, -1L);
    }

    // ---- the body ----

    @Override
    public void readBody(BodySink body, long deadlineMillis) {
        if (ctx.executor().inEventLoop()) {
            startBody(body, deadlineMillis);
        } else {
            ctx.executor().execute(() -> startBody(body, deadlineMillis));
        }
    }

    private void startBody(BodySink body, long deadlineMillis) {
        this.sink = body;
        bodyDeadline = ctx.executor().schedule(this::bodyTimedOut, deadlineMillis, TimeUnit.MILLISECONDS);
        if (early != null) {
            CompositeByteBuf pieces = early;
            early = null;
            try {
                feed(pieces, earlyEnded);
            } finally {
                pieces.release();
            }
        } else if (earlyEnded) {
            feed(Unpooled.EMPTY_BUFFER, true);
        }
    }

    /** A piece of the body, from the router (event loop); the router releases it. */
    @Override
    public void content(HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        if (done) {
            return; // answered without its body (refused): the rest is dropped
        }
        if (sink == null) {
            if (content.content().isReadable()) {
                if (early == null) {
                    early = ctx.alloc().compositeBuffer();
                }
                if (early.readableBytes() <= mount.options.maxMessageSize()) {
                    early.addComponent(true, content.content().retain()); // its own reference
                }
            }
            earlyEnded |= last;
            return;
        }
        feed(content.content(), last);
    }

    private void feed(ByteBuf bytes, boolean last) {
        if (bodyOver) {
            return;
        }
        if (bytes.isReadable() && !sink.onData(bytes.nioBuffer())) {
            endBody(); // refused (too large): the transport has answered
            return;
        }
        if (last) {
            endBody();
            sink.onEnd();
        }
    }

    private void bodyTimedOut() {
        if (!bodyOver) {
            endBody();
            sink.onFailure(new TimeoutException("request body not received in time"));
        }
    }

    private void endBody() {
        bodyOver = true;
        if (early != null) {
            early.release();
            early = null;
        }
        if (bodyDeadline != null) {
            bodyDeadline.cancel(false);
            bodyDeadline = null;
        }
    }

    // ---- the connection ----

    @Override
    public void onClientGone(Consumer<Throwable> listener) {
        this.gone = listener;
    }

    /** The connection closed before the answer was written (router, event loop). */
    @Override
    public void gone(Throwable cause) {
        boolean reading = sink != null && !bodyOver;
        endBody();
        if (reading) {
            sink.onFailure(cause);
        }
        if (!done) {
            done = true;
            if (gone != null) {
                gone.accept(cause);
            }
        }
    }

    @Override
    public boolean waitsLong() {
        return waitsLong;
    }

    @Override
    public void parked(long millis) {
        // The transport answers within millis: the connection's idle close leaves it alone until then.
        waitLong();
    }

    @Override
    public void streaming() {
        waitLong();
    }

    private void waitLong() {
        if (ctx.executor().inEventLoop()) {
            waitsLong = true;
        } else {
            ctx.executor().execute(this::waitLong);
        }
    }

    // ---- the answer ----

    @Override
    public void addHeader(String name, String value) {
        responseHeaders.add(name, value);
    }

    @Override
    public void respond(int status, String contentType, byte[] body, Promise<Void> written) {
        if (ctx.executor().inEventLoop()) {
            answer(status, contentType, body, written);
        } else {
            ctx.executor().execute(() -> answer(status, contentType, body, written));
        }
    }

    private void answer(int status, String contentType, byte[] body, Promise<Void> written) {
        if (done || headersSent) {
            written.fail(new IllegalStateException("answered already"));
            return;
        }
        done = true;
        endBody();
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(status), Unpooled.wrappedBuffer(body), responseHeaders,
                EmptyHttpHeaders.INSTANCE);
        if (contentType != null) {
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        }
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length); // as setContentLength, unboxed
        boolean keepAlive = keepAlive(response);
        HttpUtil.setKeepAlive(response, keepAlive);
        ctx.writeAndFlush(response).addListener(future -> {
            complete(future.isSuccess(), future.cause(), written);
            router.finished(keepAlive && future.isSuccess());
        });
    }

    /** Whether the connection stays open after this answer: as the request asked, unless the answer says close. */
    private boolean keepAlive(HttpResponse response) {
        return HttpUtil.isKeepAlive(request)
                && !response.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
    }

    @Override
    public void abort(Throwable cause) {
        if (ctx.executor().inEventLoop()) {
            abortNow();
        } else {
            ctx.executor().execute(this::abortNow);
        }
    }

    private void abortNow() {
        if (!done) {
            done = true;
            endBody();
            ctx.close();
        }
    }

    @Override
    public boolean streams() {
        return true;
    }

    @Override
    public void write(byte[] chunk, boolean last, Promise<Void> written) {
        if (ctx.executor().inEventLoop()) {
            writeNow(chunk, last, written);
        } else {
            ctx.executor().execute(() -> writeNow(chunk, last, written));
        }
    }

    private void writeNow(byte[] chunk, boolean last, Promise<Void> written) {
        if (done) {
            written.fail(new ClosedChannelException());
            return;
        }
        if (!headersSent) {
            headersSent = true;
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, responseHeaders);
            HttpUtil.setTransferEncodingChunked(head, true);
            streamKeepAlive = keepAlive(head);
            HttpUtil.setKeepAlive(head, streamKeepAlive);
            ctx.write(head);
        }
        if (last) {
            done = true;
        }
        ByteBuf bytes = Unpooled.wrappedBuffer(chunk);
        HttpContent part = last ? new DefaultLastHttpContent(bytes, EmptyHttpHeaders.INSTANCE)
                : new DefaultHttpContent(bytes);
        // A client that does not take what is written holds one part, and not beyond the idle time.
        ScheduledFuture<?> stall = ctx.executor().schedule(() -> ctx.close(), Mount.IDLE_MILLIS,
                TimeUnit.MILLISECONDS);
        ChannelFuture sent = ctx.writeAndFlush(part);
        sent.addListener(future -> {
            stall.cancel(false);
            complete(future.isSuccess(), future.cause(), written);
            if (last) {
                router.finished(future.isSuccess() && streamKeepAlive);
            }
        });
    }

    @Override
    public Runnable schedule(Runnable task, long millis) {
        ScheduledFuture<?> future = ctx.executor().schedule(task, millis, TimeUnit.MILLISECONDS);
        return () -> future.cancel(false);
    }

    private static void complete(boolean success, Throwable cause, Promise<Void> written) {
        if (success) {
            written.succeed(null);
        } else {
            written.fail(cause == null ? new ClosedChannelException() : cause);
        }
    }
}
