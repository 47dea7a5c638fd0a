package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.weft.transport.netty.testing.NettyLeaks;
import java.util.Arrays;
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
}
