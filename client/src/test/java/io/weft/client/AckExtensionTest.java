package io.weft.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AckExtensionTest {
    private final AckExtension ack = new AckExtension();

    private static Message.Mutable reply(String channel, boolean successful, Map<String, Object> ext) {
        Message.Mutable message = Messages.of(channel);
        message.setSuccessful(successful);
        if (ext != null) {
            message.put("ext", new java.util.LinkedHashMap<>(ext));
        }
        return message;
    }

    @Test
    void asksForAcknowledgementsInTheHandshake() {
        Message.Mutable handshake = Messages.of("/meta/handshake");
        ack.outgoing(null, handshake);
        assertEquals(Map.of("ack", true), handshake.getExt());
    }

    @Test
    void sendsNothingWhenTheServerDoesNotAgree() {
        ack.outgoing(null, Messages.of("/meta/handshake"));
        ack.incoming(null, reply("/meta/handshake", true, null));

        Message.Mutable connect = Messages.of("/meta/connect");
        ack.outgoing(null, connect);

        assertFalse(ack.isEnabled());
        assertNull(connect.getExt());
    }

    @Test
    void echoesTheLastBatchIdOnEachConnect() {
        ack.outgoing(null, Messages.of("/meta/handshake"));
        ack.incoming(null, reply("/meta/handshake", true, Map.of("ack", true)));
        assertTrue(ack.isEnabled());

        Message.Mutable first = Messages.of("/meta/connect");
        ack.outgoing(null, first);
        assertEquals(-1L, first.getExt().get("ack"));

        ack.incoming(null, reply("/meta/connect", true, Map.of("ack", 4L)));
        ack.incoming(null, reply("/meta/connect", false, Map.of("ack", 9L)));
        Message.Mutable second = Messages.of("/meta/connect");
        ack.outgoing(null, second);
        assertEquals(4L, second.getExt().get("ack"), "an unsuccessful reply acknowledges nothing");
    }
}
