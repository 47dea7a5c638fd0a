package io.weft.transport.websocket;

import io.weft.transport.common.BayeuxSocket;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CloseReasonTest {
    @Test
    void shortReasonIsKept() {
        assertEquals("not valid JSON", BayeuxSocket.truncate("not valid JSON"));
        assertNull(BayeuxSocket.truncate(null));
    }

    @Test
    void longReasonIsCutToWhatACloseFrameCarries() {
        String reason = BayeuxSocket.truncate("x".repeat(500));
        assertEquals(123, reason.getBytes(StandardCharsets.UTF_8).length);
    }

    @Test
    void cutNeverSplitsACharacter() {
        String reason = BayeuxSocket.truncate("é".repeat(100) + "\uD83D\uDE00".repeat(50));
        byte[] utf8 = reason.getBytes(StandardCharsets.UTF_8);
        assertTrue(utf8.length <= 123, String.valueOf(utf8.length));
        assertEquals(reason, new String(utf8, StandardCharsets.UTF_8), "no lone surrogate was left");
        String emoji = BayeuxSocket.truncate("\uD83D\uDE00".repeat(40));
        assertTrue(!Character.isHighSurrogate(emoji.charAt(emoji.length() - 1)));
    }
}
