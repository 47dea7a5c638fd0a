package io.weft.transport.netty;

import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/1.1 connection's requests, one at a time: a request below the mount becomes an {@link NettyExchange} for
 * the polling transport, or, as a websocket upgrade, a {@link NettySocket}; any other goes to the {@link Fallback}.
 * Answers go out in the order the requests came: a request that arrives while the one before is unanswered
 * (pipelining) waits, and the connection reads no further until it is taken.
 *
 * <p>Ownership: the codec's messages arrive here and are released here once passed on (a body's bytes are copied by
 * the exchange's sink, or gathered into the fallback's request, which this releases after the fallback returns). Event
 * loop only.
 */
final class HttpRouter extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(HttpRouter.class);
    /** How long a connection that ends with a refused body keeps reading (and dropping) before it closes. */
    static final long LINGER_MILLIS = 2_000;

    private final Mount mount;
    private ChannelHandlerContext ctx;
    private HeadClock clock;
    /** Where the current request's body goes. */
    private Target target;
    /** Whether the current request's body has ended (its last content arrived). */
    private boolean bodyEnded = true;
    /** Whether the current request has been answered. With its body ended too, the next request may start. */
    private boolean answered = true;
    /** Whether this connection carries no more HTTP: it became a websocket, or it is closing. */
    private boolean over;
    /** Messages of requests that came before the current one was done. */
    private final ArrayDeque<Object> waiting = new ArrayDeque<>(2);
    /** This server's origin as the connection's last request named it: the next names the same, as a rule. */
    private KnownOrigin knownOrigin;

    /** An origin and the {@code Host} it was made of (null: none); immutable, so read whole from any thread. */
    private record KnownOrigin(String host, String origin) {
    }

    /** Where a request's body goes: an exchange, the fallback's gathering, an upgrade waiting for its end. */
    interface Target {
        /** A piece of the body; owned by the caller, which releases it. */
        void content(HttpContent content);

        /** The connection closed before the request was answered. */
        void gone(Throwable cause);

        /** Whether the connection may sit idle while this waits (a held connect, a stream, an upgrade). */
        default boolean waitsLong() {
            return false;
        }
    }

    HttpRouter(Mount mount) {
        this.mount = mount;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        this.ctx = context;
        this.clock = context.pipeline().get(HeadClock.class);
    }

    /**
     * This server's origin as {@code request} names it ({@link Requests#serverOrigin}), made once per connection rather
     * than once per request: it depends only on the {@code Host} header and the connection. Not for a request whose
     * trusted proxy forwarded a scheme, host or port: those are each request's own ({@link NettyExchange}).
     */
    String serverOrigin(HttpRequest request) {
        String host = request.headers().get(HttpHeaderNames.HOST);
        KnownOrigin known = knownOrigin;
        if (known == null || !Objects.equals(known.host(), host)) {
            known = new KnownOrigin(host, Requests.serverOrigin(request, ctx.channel(), mount, null));
            knownOrigin = known;
        }
        return known.origin();
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
        if (over) {
            ReferenceCountUtil.release(message);
            return;
        }
        if (!answered && bodyEnded || !waiting.isEmpty()) {
            // The next request, pipelined behind one not answered yet: it waits, and nothing more is read meanwhile.
            waiting.add(message);
            context.channel().config().setAutoRead(false);
            return;
        }
        dispatch(message);
    }

    private void dispatch(Object message) {
        try {
            if (message instanceof HttpRequest request) {
                request(request);
            }
            if (message instanceof HttpContent content) {
                body(content);
            }
        } finally {
            ReferenceCountUtil.release(message);
        }
    }

    private void request(HttpRequest request) {
        if (clock != null) {
            clock.arrived();
        }
        answered = false;
        bodyEnded = false;
        DecoderResult result = request.decoderResult();
        if (result.isFailure()) {
            refuse(tooLong(result.cause()) ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
                    : HttpResponseStatus.BAD_REQUEST, "malformed request");
            return;
        }
        String path;
        try {
            path = new QueryStringDecoder(request.uri()).path();
        } catch (IllegalArgumentException x) {
            refuse(HttpResponseStatus.BAD_REQUEST, "malformed request path");
            return;
        }
        String below = mount.below(path);
        if (below == null) {
            target = new FallbackRequest(request);
        } else if (isUpgrade(request)) {
            target = new Upgrade(request);
        } else {
            NettyExchange exchange = new NettyExchange(this, ctx, request, below, mount);
            target = exchange;
            mount.polling.handle(exchange);
        }
    }

    private void body(HttpContent content) {
        if (bodyEnded) {
            return;
        }
        boolean last = content instanceof LastHttpContent;
        if (last) {
            bodyEnded = true;
        }
        if (content.decoderResult().isFailure()) {
            refuse(HttpResponseStatus.BAD_REQUEST, "malformed request body");
            return;
        }
        if (target != null) {
            target.content(content);
        }
        if (last && answered && !over && ctx.channel().isActive()) {
            next(); // answered before its body ended: the rest of it has now been read (and dropped)
        }
    }

    private static boolean tooLong(Throwable cause) {
        return cause instanceof TooLongFrameException;
    }

    private static boolean isUpgrade(HttpRequest request) {
        return request.method().equals(HttpMethod.GET)
                && request.headers().containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true)
                && request.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true);
    }

    /** A request the router answers itself, and then closes the connection: what follows on it cannot be trusted. */
    private void refuse(HttpResponseStatus status, String reason) {
        if (answered) {
            return;
        }
        target = null;
        over = true;
        FullHttpResponse response = Fallback.text(status, reason + "\n");
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        response.headers().set("X-Content-Type-Options", "nosniff");
        HttpUtil.setContentLength(response, response.content().readableBytes());
        answered = true;
        ctx.writeAndFlush(response).addListener(written -> closeAfterAnswer());
    }

    /**
     * The current request has been answered (its response written, or failed): the next may start, if the
     * connection stays open. Event loop only.
     */
    void finished(boolean keepAlive) {
        target = null;
        answered = true;
        if (!keepAlive) {
            over = true;
            closeAfterAnswer();
        } else if (bodyEnded) {
            next();
        }
        // else: the rest of the body is read and dropped, and then the next request starts (see body).
    }

    /**
     * Closes the connection once an answer that ends it is written. While the client may still be sending a body the
     * server did not read (a refused one), closing at once would reset the connection and could destroy the answer on
     * its way: the output is shut instead, what still comes is read and dropped ({@link #over}), and the connection
     * closes when the client closes its side, or after {@link #LINGER_MILLIS}.
     */
    private void closeAfterAnswer() {
        if (bodyEnded || !(ctx.channel() instanceof DuplexChannel duplex) || !ctx.channel().isActive()) {
            ctx.close();
            return;
        }
        ctx.channel().config().setAutoRead(true);
        duplex.shutdownOutput();
        ctx.executor().schedule(() -> ctx.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** The current request is done: the next one, if one waits, else reading again. */
    private void next() {
        if (clock != null) {
            clock.rested();
        }
        while (!waiting.isEmpty() && !(bodyEnded && !answered) && !over) {
            dispatch(waiting.poll());
        }
        if (waiting.isEmpty() && ctx.channel().isActive() && !over) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        Target gone = target;
        target = null;
        if (gone != null && !answered) {
            gone.gone(new ClosedChannelException());
        }
        while (!waiting.isEmpty()) {
            ReferenceCountUtil.release(waiting.poll());
        }
        context.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) {
        if (event instanceof IdleStateEvent) {
            if (answered || target == null || !target.waitsLong()) {
                LOG.debug("closing idle {}", context.channel());
                context.close();
            }
            return;
        }
        context.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        LOG.debug("closing {}: {}", context.channel(), cause.toString());
        context.close();
    }

    /** Sends a fallback's (or the router's) full response for the current request and moves on. */
    private void respond(FullHttpResponse response, boolean requestKeepAlive) {
        if (!response.headers().contains(HttpHeaderNames.CONTENT_LENGTH)) {
            HttpUtil.setContentLength(response, response.content().readableBytes());
        }
        boolean keepAlive = requestKeepAlive && !response.headers().containsValue(HttpHeaderNames.CONNECTION,
                HttpHeaderValues.CLOSE, true);
        HttpUtil.setKeepAlive(response, keepAlive);
        ctx.writeAndFlush(response).addListener(written -> finished(keepAlive && written.isSuccess()));
    }

    /** A request for the fallback: its body gathered (at most {@link Mount#MAX_FALLBACK_BODY}), then served. */
    private final class FallbackRequest implements Target {
        private final HttpRequest request;
        private CompositeByteBuf body;
        private boolean refused;

        FallbackRequest(HttpRequest request) {
            this.request = request;
        }

        @Override
        public void content(HttpContent content) {
            if (refused) {
                return;
            }
            if (content.content().isReadable()) {
                if (body == null) {
                    body = ctx.alloc().compositeBuffer();
                }
                if (body.readableBytes() + content.content().readableBytes() > Mount.MAX_FALLBACK_BODY) {
                    refused = true;
                    body.release();
                    body = null;
                    refuse(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "request body too large");
                    return;
                }
                // The composite takes a reference of its own; the router releases the piece it was given.
                body.addComponent(true, content.content().retain());
            }
            if (content instanceof LastHttpContent) {
                serve();
            }
        }

        private void serve() {
            DefaultFullHttpRequest whole = new DefaultFullHttpRequest(request.protocolVersion(), request.method(),
                    request.uri(), body == null ? ctx.alloc().buffer(0) : body);
            body = null;
            whole.headers().set(request.headers());
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            Responded once = new Responded(keepAlive);
            try {
                mount.fallback.serve(whole, once);
            } catch (Throwable x) {
                LOG.warn("the fallback failed on {} {}", request.method(), request.uri(), x);
                once.respond(Fallback.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "server error\n"));
            } finally {
                whole.release();
            }
        }

        @Override
        public void gone(Throwable cause) {
            if (body != null) {
                body.release();
                body = null;
            }
        }
    }

    /** The fallback's answer, taken once, on the event loop whatever thread gives it. */
    private final class Responded implements Fallback.Responder {
        private final boolean keepAlive;
        private boolean done;

        Responded(boolean keepAlive) {
            this.keepAlive = keepAlive;
        }

        @Override
        public void respond(FullHttpResponse response) {
            if (!ctx.executor().inEventLoop()) {
                ctx.executor().execute(() -> respond(response));
                return;
            }
            if (done || answered || !ctx.channel().isActive()) {
                response.release();
                return;
            }
            done = true;
            HttpRouter.this.respond(response, keepAlive);
        }
    }

    /** A websocket upgrade below the mount: handed over once its (empty) body has ended. */
    private final class Upgrade implements Target {
        private final HttpRequest request;

        Upgrade(HttpRequest request) {
            this.request = request;
        }

        @Override
        public void content(HttpContent content) {
            if (content instanceof LastHttpContent) {
                over = true; // the socket answers it: this connection carries no more HTTP
                target = null;
                ctx.channel().config().setAutoRead(false);
                NettySocket.upgrade(ctx, request, mount);
            }
        }

        @Override
        public void gone(Throwable cause) {
        }

        @Override
        public boolean waitsLong() {
            return true;
        }
    }
}
