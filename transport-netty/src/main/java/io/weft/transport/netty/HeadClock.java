package io.weft.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import io.weft.server.api.Limit;
import io.weft.server.spi.Engine;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deadline of a request head ({@code requestHeadTimeout}), in front of the HTTP codec: the first bytes that arrive
 * while no request is in progress start it, the router stops it when the codec has made a request of them
 * ({@link #arrived}), and starts watching again once that request has been answered ({@link #rested}). A head not whole
 * in time gets 408 and the connection is closed, counted as {@link Limit#REQUEST_HEAD}: bytes trickled one at a time
 * cannot hold a connection longer than that. Event loop only.
 */
final class HeadClock extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(HeadClock.class);
    private static final byte[] REQUEST_TIMEOUT = ("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n"
            + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

    private final Engine engine;
    private final long timeoutMillis;
    /** Whether a request is in progress (its head arrived, its answer not yet written). */
    private boolean busy;
    private ScheduledFuture<?> deadline;
    /** How many request heads the codec has made on this connection. */
    private long heads;

    HeadClock(Engine engine) {
        this.engine = engine;
        this.timeoutMillis = engine.options().requestHeadTimeout();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        boolean starts = !busy && deadline == null && message instanceof ByteBuf bytes && bytes.isReadable();
        long headsBefore = heads;
        ctx.fireChannelRead(message);
        // Started once the codec has seen the bytes, not before: a head that came whole in them (the usual case) needs
        // no clock, and costs no timer task to be scheduled and cancelled at once.
        if (starts && heads == headsBefore && deadline == null && !ctx.isRemoved() && ctx.channel().isActive()) {
            deadline = ctx.executor().schedule(() -> expire(ctx), timeoutMillis, TimeUnit.MILLISECONDS);
        }
    }

    /** The codec has made a whole request head of what arrived. */
    void arrived() {
        busy = true;
        heads++;
        cancel();
    }

    /** The request in progress has been answered: the next bytes are the next head's. */
    void rested() {
        busy = false;
    }

    private void expire(ChannelHandlerContext ctx) {
        deadline = null;
        if (busy || !ctx.channel().isActive()) {
            return;
        }
        engine.refused(Limit.REQUEST_HEAD);
        LOG.debug("closing {}: no whole request head within {} ms (requestHeadTimeout)", ctx.channel(), timeoutMillis);
        // Written from here, in front of the codec: it is bytes, not a response the codec would frame.
        ctx.writeAndFlush(Unpooled.wrappedBuffer(REQUEST_TIMEOUT)).addListener(ChannelFutureListener.CLOSE);
    }

    private void cancel() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        ctx.fireChannelInactive();
    }
}
