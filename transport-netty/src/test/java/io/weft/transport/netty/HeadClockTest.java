package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Engine;
import io.weft.transport.netty.testing.NettyLeaks;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The request-head deadline on an embedded channel, on Netty's frozen clock. */
class HeadClockTest {
    @RegisterExtension
    static final NettyLeaks leaks = new NettyLeaks();

    private final BayeuxServer bayeux = BayeuxServer.create(ServerOptions.builder().requestHeadTimeout(500).build());
    private final HeadClock clock = new HeadClock(Engine.of(bayeux));
    private final EmbeddedChannel channel = new EmbeddedChannel();

    HeadClockTest() {
        channel.freezeTime();
        channel.pipeline().addLast(clock);
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
        bayeux.close();
    }

    private void arrive(String text) {
        channel.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
        ByteBuf passed = channel.readInbound();
        passed.release(); // what the codec behind it would have taken
    }

    private void after(long millis) {
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
    }

    @Test
    void aHeadNotWholeInTimeIsAnswered408AndClosedAndCounted() {
        arrive("GET /cometd HTTP/1.1\r\nHo");
        after(300);
        arrive("s"); // a byte more does not start the clock again
        after(201);
        ByteBuf answer = channel.readOutbound();
        assertTrue(answer.toString(StandardCharsets.US_ASCII).startsWith("HTTP/1.1 408"));
        answer.release();
        assertFalse(channel.isOpen());
        assertEquals(1, bayeux.getRefusals().get(Limit.REQUEST_HEAD));
    }

    @Test
    void aHeadThatArrivesWholeInOneReadStartsNoClock() {
        channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object message) {
                ReferenceCountUtil.release(message);
                clock.arrived(); // as the router does when the codec has made a request of the bytes
            }
        });
        channel.writeInbound(Unpooled.copiedBuffer("GET /cometd HTTP/1.1\r\nHost: x\r\n\r\n",
                StandardCharsets.US_ASCII));
        assertEquals(-1, channel.runScheduledPendingTasks(), "no timer task scheduled, none to cancel");
        clock.rested();
        after(10_000);
        assertTrue(channel.isOpen());
    }

    @Test
    void aHeadThatArrivesInTimeStopsTheClockUntilItsRequestIsAnswered() {
        arrive("GET /cometd HTTP/1.1\r\n");
        after(400);
        clock.arrived();
        after(10_000); // a held connect: the request is the router's
        assertNull(channel.readOutbound());
        assertTrue(channel.isOpen());
        clock.rested();
        after(10_000); // an idle keep-alive connection: no bytes, no clock
        assertTrue(channel.isOpen());
        arrive("G");
        after(501);
        ByteBuf answer = channel.readOutbound();
        assertTrue(answer.toString(StandardCharsets.US_ASCII).startsWith("HTTP/1.1 408"), "the next head is timed");
        answer.release();
    }
}
