package io.weft.transport.common;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Collects a request body up to a limit, counting as it reads: a body that grows past the limit is refused as soon
 * as it does, without reading the rest. Used by one exchange, on one thread at a time.
 */
final class BodyCollector implements HttpExchange.BodySink {
    /** What happens to the collected body. */
    interface Outcome {
        void body(byte[] bytes, int length);

        void tooLarge();

        void failed(Throwable failure);
    }

    /** The largest buffer allocated before bytes arrive; it grows, doubling, as they do. */
    static final int FIRST_BUFFER = 4096;

    private final int limit;
    private final Outcome outcome;
    private byte[] bytes;
    private int length;

    /**
     * @param limit the largest body accepted, in bytes
     * @param expected the declared length, or -1: sizes the first buffer, up to {@link #FIRST_BUFFER} (a client
     *     declaring a large body and sending none must not make the server hold the whole of it)
     */
    BodyCollector(int limit, long expected, Outcome outcome) {
        this.limit = limit;
        this.outcome = outcome;
        this.bytes = new byte[(int) Math.min(Math.min(limit, FIRST_BUFFER), expected >= 0 ? expected : 1024)];
    }

    @Override
    public boolean onData(ByteBuffer chunk) {
        int size = chunk.remaining();
        if (size > limit - length) {
            bytes = null;
            outcome.tooLarge();
            return false;
        }
        if (length + size > bytes.length) {
            bytes = Arrays.copyOf(bytes, (int) Math.min(limit, Math.max(length + size, 2L * bytes.length)));
        }
        chunk.get(bytes, length, size);
        length += size;
        return true;
    }

    /** The buffer's size now; for tests. */
    int capacity() {
        return bytes == null ? 0 : bytes.length;
    }

    @Override
    public void onEnd() {
        outcome.body(bytes, length);
    }

    @Override
    public void onFailure(Throwable failure) {
        outcome.failed(failure);
    }
}
