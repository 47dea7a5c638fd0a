package io.weft.transport.netty.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class in which a Netty buffer was dropped without being released: after its tests, collects garbage
 * and allocates a few buffers, which makes the detectors report what they found ({@link LeakRecorder}), and asserts
 * there is nothing. {@code @RegisterExtension static final NettyLeaks leaks = new NettyLeaks();}
 */
public final class NettyLeaks implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        for (int round = 0; round < 3; round++) {
            System.gc();
            // Each tracked allocation looks at what the collector found since the last.
            for (int i = 0; i < 64; i++) {
                ByteBuf pooled = PooledByteBufAllocator.DEFAULT.directBuffer(8);
                pooled.release();
                ByteBuf unpooled = UnpooledByteBufAllocator.DEFAULT.directBuffer(8);
                unpooled.release();
            }
        }
        assertEquals(List.of(), LeakRecorder.leaks(), "Netty buffers were not released");
    }
}
