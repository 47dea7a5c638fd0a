package io.weft.transport.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** A request body is collected as it arrives, never allocated whole from what a client declares. */
class BodyCollectorTest {
    @Test
    void aDeclaredBodyIsNotAllocatedBeforeItArrives() {
        BodyCollector collector = new BodyCollector(65_536, 65_536, new BodyCollector.Outcome() {
            @Override
            public void body(byte[] bytes, int length) {
            }

            @Override
            public void tooLarge() {
            }

            @Override
            public void failed(Throwable failure) {
            }
        });
        assertEquals(BodyCollector.FIRST_BUFFER, collector.capacity());
        collector.onData(ByteBuffer.wrap(new byte[10_000]));
        assertTrue(collector.capacity() >= 10_000 && collector.capacity() <= 65_536, collector.capacity() + " bytes");
    }
}
