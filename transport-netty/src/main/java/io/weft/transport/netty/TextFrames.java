package io.weft.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * A server's unfragmented, unmasked text frame, whole in one buffer: the two to ten bytes of RFC 6455's header and the
 * payload after them, what Netty's frame encoder makes of a {@code TextWebSocketFrame} (FrameEncodingTest holds the two
 * to the same bytes). Written below the encoder, which lets a buffer pass as it is: one buffer per frame, no frame
 * object and no encoder step. Only where no extension encodes frames (permessage-deflate).
 *
 * <p>A published message alone in its batch has one array of bytes for all its recipients ({@code Codec.encode}); the
 * fan-out writes it to them one after the other on each loop. So each loop keeps the last frame it built, with the
 * array it holds, until the end of its turn: a write of the same array is handed a duplicate of that frame (its own
 * indices over the same memory, and a reference), not a buffer of its own and a copy.
 */
final class TextFrames {
    /** FIN, and the text opcode. */
    private static final int FIN_TEXT = 0x81;
    private static final FastThreadLocal<Last> LAST = new FastThreadLocal<>() {
        @Override
        protected Last initialValue() {
            return new Last();
        }
    };

    private TextFrames() {
    }

    /**
     * The frame of {@code payload} for a write on {@code channel}'s event loop (called there), shared with the other
     * writes of the same array in this turn of the loop; the caller owns the reference it gets (writing it hands it to
     * Netty).
     */
    static ByteBuf shared(Channel channel, byte[] payload) {
        Last last = LAST.get();
        if (last.payload != payload) {
            last.release();
            last.frame = frame(channel.alloc(), payload);
            last.payload = payload;
            if (!last.releaseDue) {
                last.releaseDue = true;
                EventLoop loop = channel.eventLoop();
                if (loop instanceof SingleThreadEventLoop turns) {
                    turns.executeAfterEventLoopIteration(last);
                } else {
                    loop.execute(last);
                }
            }
        }
        return last.frame.retainedDuplicate();
    }

    /** A loop's last frame; its own reference is released at the end of the turn it was built in. */
    private static final class Last implements Runnable {
        private byte[] payload;
        private ByteBuf frame;
        private boolean releaseDue;

        @Override
        public void run() {
            releaseDue = false;
            release();
        }

        void release() {
            if (frame != null) {
                frame.release();
                frame = null;
                payload = null;
            }
        }
    }

    /** A new buffer from {@code allocator} holding the frame; the caller owns it (writing it hands it to Netty). */
    static ByteBuf frame(ByteBufAllocator allocator, byte[] payload) {
        int length = payload.length;
        int header = length < 126 ? 2 : length <= 0xFFFF ? 4 : 10;
        ByteBuf frame = allocator.directBuffer(header + length);
        frame.writeByte(FIN_TEXT);
        if (length < 126) {
            frame.writeByte(length);
        } else if (length <= 0xFFFF) {
            frame.writeByte(126);
            frame.writeShort(length);
        } else {
            frame.writeByte(127);
            frame.writeLong(length);
        }
        frame.writeBytes(payload);
        return frame;
    }
}
