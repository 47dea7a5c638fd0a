package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.weft.transport.netty.testing.NettyLeaks;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The text frames the socket writes below Netty's encoder are the very bytes Netty's server encoder makes. */
class FrameEncodingTest {
    @RegisterExtension
    static final NettyLeaks leaks = new NettyLeaks();

    private static byte[] drain(EmbeddedChannel channel) {
        ByteBuf all = Unpooled.buffer();
        ByteBuf part;
        while ((part = channel.readOutbound()) != null) {
            all.writeBytes(part);
            part.release();
        }
        byte[] bytes = ByteBufUtil.getBytes(all);
        all.release();
        return bytes;
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 125, 126, 127, 65_535, 65_536, 70_000})
    void aTextFrameIsWhatNettysServerEncoderWrites(int length) {
        byte[] payload = new byte[length];
        Arrays.fill(payload, (byte) 'x');
        EmbeddedChannel netty = new EmbeddedChannel(new WebSocket13FrameEncoder(false));
        netty.writeOutbound(new TextWebSocketFrame(Unpooled.wrappedBuffer(payload)));
        ByteBuf ours = TextFrames.frame(ByteBufAllocator.DEFAULT, payload);
        try {
            assertArrayEquals(drain(netty), ByteBufUtil.getBytes(ours), length + " bytes of payload");
        } finally {
            ours.release();
            netty.finishAndReleaseAll();
        }
    }

    @Test
    void writesOfOneArrayInATurnShareOneFrameAndEachWriteReadsItWhole() {
        byte[] one = "[{\"channel\":\"/chat/1\",\"data\":\"a\"}]".getBytes(StandardCharsets.UTF_8);
        byte[] other = "[{\"channel\":\"/chat/1\",\"data\":\"b\"}]".getBytes(StandardCharsets.UTF_8);
        EmbeddedChannel channel = new EmbeddedChannel();
        ByteBuf first = TextFrames.shared(channel, one);
        ByteBuf second = TextFrames.shared(channel, one);
        ByteBuf third = TextFrames.shared(channel, other);
        ByteBuf fourth = TextFrames.shared(channel, one);
        try {
            assertNotSame(first, second);
            assertEquals(first.unwrap(), second.unwrap(), "one frame under both writes");
            channel.writeOutbound(first, second, third, fourth);
            channel.runPendingTasks(); // the end of the turn: the loop's own reference goes
            assertArrayEquals(frameOf(one), drainOne(channel));
            assertArrayEquals(frameOf(one), drainOne(channel), "the first write's reading left it whole");
            assertArrayEquals(frameOf(other), drainOne(channel));
            assertArrayEquals(frameOf(one), drainOne(channel));
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    /** The next frame written, read through (as a socket's write would move its reader index) and released. */
    private static byte[] drainOne(EmbeddedChannel channel) {
        ByteBuf frame = channel.readOutbound();
        try {
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            return bytes;
        } finally {
            frame.release();
        }
    }

    private static byte[] frameOf(byte[] payload) {
        ByteBuf frame = TextFrames.frame(ByteBufAllocator.DEFAULT, payload);
        try {
            return ByteBufUtil.getBytes(frame);
        } finally {
            frame.release();
        }
    }
}
