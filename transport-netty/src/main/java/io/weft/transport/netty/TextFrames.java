package io.weft.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * A server's unfragmented, unmasked text frame, whole in one buffer: the two to ten bytes of RFC 6455's header and the
 * payload after them, what Netty's frame encoder makes of a {@code TextWebSocketFrame} (FrameEncodingTest holds the two
 * to the same bytes). Written below the encoder, which lets a buffer pass as it is: one buffer per frame, no frame
 * object and no encoder step. Only where no extension encodes frames (permessage-deflate).
 */
final class TextFrames {
    /** FIN, and the text opcode. */
    private static final int FIN_TEXT = 0x81;

    private TextFrames() {
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
