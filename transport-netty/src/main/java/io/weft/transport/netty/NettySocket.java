package io.weft.transport.netty;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionEncoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import io.weft.bayeux.Promise;
import io.weft.server.spi.Origins;
import io.weft.transport.common.BayeuxSocket;
import io.weft.transport.common.Forwarded;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Bayeux socket on Netty: the upgrade ({@link #upgrade}: origin check, browser cookie, Netty's handshake) and then,
 * in place of the HTTP handlers, whole text messages to its {@link BayeuxSocket} and its writes out as text frames.
 *
 * <p>Backpressure as on Jetty's core API: the connection reads one frame at a time ({@code autoRead} off), and after a
 * whole text message the next only once the socket has processed it (its replies written), after a ping only once
 * the pong is written: a client that sends or pings without reading stalls itself, and its batches reach the engine
 * one at a time and in order. Fragments are gathered here up to {@code maxMessageSize} (beyond: 1009).
 *
 * <p>Writes are flushed once per turn of the socket's event loop, however many frames it wrote in that turn. A write
 * made below the channel's high-water mark completes at once for the engine; past the mark, only once written, so
 * that a client that does not read holds at most the mark and then the engine's {@code maxPendingFrames}.
 *
 * <p>Ownership: each frame Netty's decoder gives is read and released here (a ping's payload goes on in the pong,
 * retained for it); the bytes of a write are copied into a frame shared by the writes of the same bytes in one turn
 * of the loop ({@link TextFrames#shared}), each write owning one reference that Netty releases once written (with
 * permessage-deflate they are wrapped, not copied).
 */
final class NettySocket extends ChannelInboundHandlerAdapter implements BayeuxSocket.Wire {
    private static final Logger LOG = LoggerFactory.getLogger(NettySocket.class);
    /** Headers of the handshake itself, not copied into what the session sees of the upgrade. */
    private static final Set<String> HANDSHAKE = Set.of("upgrade", "connection", "sec-websocket-key",
            "sec-websocket-version", "sec-websocket-extensions");

    private final BayeuxSocket socket;
    private Channel channel;
    /** Whether frames go out as whole buffers below Netty's encoder: no extension (deflate) encodes them. */
    private boolean rawFrames;
    /** Whether a flush of this socket's writes is due at the end of its loop's turn (event loop only). */
    private boolean flushDue;
    private final Runnable flush = this::flush;
    /** Whether a binary message goes on (its continuations are skipped). */
    private boolean binary;

    private NettySocket(BayeuxSocket socket) {
        this.socket = socket;
    }

    /**
     * Takes an upgrade request below the mount (the router has stopped reading): refuses a foreign origin with 403,
     * reads the browser cookie, and swaps the HTTP handlers for the websocket codec and a socket once the 101 is
     * written.
     */
    static void upgrade(ChannelHandlerContext ctx, HttpRequest request, Mount mount) {
        Channel channel = ctx.channel();
        Forwarded forwarded = Requests.forwarded(request, channel, mount);
        String origin = request.headers().get(HttpHeaderNames.ORIGIN);
        if (!Origins.check(origin, () -> Requests.serverOrigin(request, channel, mount, forwarded), mount.options)
                .allowed()) {
            LOG.debug("refusing a WebSocket upgrade from origin {}", origin);
            FullHttpResponse forbidden = Fallback.text(HttpResponseStatus.FORBIDDEN, "origin not allowed\n");
            HttpUtil.setContentLength(forbidden, forbidden.content().readableBytes());
            ctx.writeAndFlush(forbidden).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        int max = mount.options.maxMessageSize();
        WebSocketServerHandshaker handshaker = new WebSocketServerHandshakerFactory(
                (mount.secure() ? "wss://" : "ws://") + request.headers().get(HttpHeaderNames.HOST) + request.uri(),
                null, WebSocketDecoderConfig.newBuilder()
                        .allowExtensions(mount.options.webSocketDeflate())
                        .maxFramePayloadLength(max)
                        .closeOnProtocolViolation(true)
                        .build())
                .newHandshaker(request);
        if (handshaker == null) {
            WebSocketServerHandshakerFactory.sendUnsupportedVersionResponse(channel)
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        // The browser cookie is read, never set on a 101 (see WebSockets.accept).
        BayeuxSocket socket = mount.webSockets.accept(request.headers().getAll(HttpHeaderNames.COOKIE),
                Requests.snapshot(request, channel, mount, forwarded, HANDSHAKE));
        NettySocket handler = new NettySocket(socket);
        FullHttpRequest whole = new DefaultFullHttpRequest(request.protocolVersion(), request.method(), request.uri(),
                Unpooled.EMPTY_BUFFER, request.headers(), EmptyHttpHeaders.INSTANCE);
        handshaker.handshake(channel, whole, null, channel.newPromise()).addListener(done -> {
            if (!done.isSuccess()) {
                LOG.debug("websocket handshake with {} failed: {}", channel.remoteAddress(), done.cause().toString());
                channel.close();
                return;
            }
            ChannelPipeline pipeline = channel.pipeline();
            pipeline.remove(ConnectionSetup.HEAD);
            pipeline.replace(ConnectionSetup.IDLE, ConnectionSetup.IDLE, new IdleStateHandler(0, 0,
                    mount.webSockets.idleTimeoutMillis(), TimeUnit.MILLISECONDS));
            pipeline.replace(ConnectionSetup.ROUTER, ConnectionSetup.SOCKET, handler);
            handler.start();
        });
    }

    private void start() {
        rawFrames = channel.pipeline().get(WebSocketExtensionEncoder.class) == null;
        socket.open(this);
        channel.read();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.channel = ctx.channel();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        try {
            if (message instanceof TextWebSocketFrame text) {
                binary = false;
                text(text, true);
            } else if (message instanceof ContinuationWebSocketFrame continuation) {
                if (binary) {
                    next();
                } else {
                    text(continuation, false);
                }
            } else if (message instanceof BinaryWebSocketFrame frame) {
                binary = !frame.isFinalFragment();
                socket.binary(frame.content().readableBytes());
                next();
            } else if (message instanceof PingWebSocketFrame ping) {
                // The next frame only once the pong is written: a client that pings without reading stalls itself.
                ctx.writeAndFlush(new PongWebSocketFrame(ping.content().retain())).addListener(written -> next());
            } else if (message instanceof CloseWebSocketFrame close) {
                // Answered with its own status, then closed: nothing more is read.
                ctx.writeAndFlush(new CloseWebSocketFrame(close.statusCode(), null))
                        .addListener(ChannelFutureListener.CLOSE);
            } else if (message instanceof WebSocketFrame) {
                next(); // a pong
            } else {
                // Bytes the HTTP codec held past the upgrade request: a client that did not wait for the 101.
                close(BayeuxSocket.POLICY_VIOLATION, "sent before the upgrade was answered");
            }
        } finally {
            ReferenceCountUtil.release(message);
        }
    }

    /** Done with a frame: the next one is read. */
    private void next() {
        channel.read();
    }

    /** A text frame, or a continuation of one ({@code first}: a text frame): the socket gathers and handles it. */
    private void text(WebSocketFrame frame, boolean first) {
        // decoded (or copied) before the frame is released; else the next read waits for the batch's replies
        if (socket.textFrame(frame.content().nioBuffer(), first, frame.isFinalFragment(), new Demand())) {
            next();
        }
    }

    /** Reads the next frame once a message is processed: once, whichever thread completes it. */
    private final class Demand extends AtomicBoolean implements Runnable {
        private static final long serialVersionUID = 1L;

        @Override
        public void run() {
            if (compareAndSet(false, true)) {
                next();
            }
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof IdleStateEvent) {
            LOG.debug("websocket from {} idle: closing", socket.remote());
            close(WebSocketCloseStatus.ENDPOINT_UNAVAILABLE.code(), "idle timeout");
            return;
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof CorruptedWebSocketFrameException corrupted
                && corrupted.closeStatus() != null
                && corrupted.closeStatus().code() == WebSocketCloseStatus.MESSAGE_TOO_BIG.code()) {
            // Netty's decoder is closing the socket with 1009 for a frame over maxMessageSize.
            socket.tooLarge(cause.getMessage());
        } else {
            LOG.debug("websocket from {} failed: {}", socket.remote(), cause.toString());
        }
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        LOG.debug("websocket from {} closed", socket.remote());
        socket.ended();
        ctx.fireChannelInactive();
    }

    // ---- BayeuxSocket.Wire: any thread ----

    /**
     * Writes on the socket's loop, and flushes once at the end of that loop's turn, whatever the number of frames
     * written in it: a publish fanned out on another loop becomes one task here, and one system call per socket and
     * turn, not per frame.
     */
    @Override
    public void write(byte[] json, Promise<Void> written) {
        EventLoop loop = channel.eventLoop();
        if (loop.inEventLoop()) {
            writeNow(json, written);
        } else {
            loop.execute(() -> writeNow(json, written));
        }
    }

    private void writeNow(byte[] json, Promise<Void> written) {
        // The codec already produced UTF-8: the bytes go out as the frame's payload (a raw frame copies them once, and
        // the recipients of one message written in one turn of this loop share that frame).
        Object frame = rawFrames ? TextFrames.shared(channel, json)
                : new TextWebSocketFrame(Unpooled.wrappedBuffer(json));
        if (channel.isWritable()) {
            // Below the high-water mark the frame is as good as written: the engine may go on at once, with no
            // listener of ours (a failure closes the socket through exceptionCaught; the idle handler, which watches
            // writes, still gives the write a promise of its own). Past the mark, the engine waits for the write, so
            // that a client that does not read holds at most the mark and maxPendingFrames.
            channel.write(frame, channel.voidPromise());
            written.succeed(null);
        } else {
            channel.write(frame).addListener(future -> {
                if (future.isSuccess()) {
                    written.succeed(null);
                } else {
                    written.fail(future.cause());
                }
            });
        }
        if (!flushDue) {
            flushDue = true;
            EventLoop loop = channel.eventLoop();
            if (loop instanceof SingleThreadEventLoop turns) {
                turns.executeAfterEventLoopIteration(flush);
            } else {
                loop.execute(flush);
            }
        }
    }

    private void flush() {
        flushDue = false;
        channel.flush();
    }

    @Override
    public void close(int code, String reason) {
        channel.writeAndFlush(new CloseWebSocketFrame(code, reason)).addListener(ChannelFutureListener.CLOSE);
    }
}
