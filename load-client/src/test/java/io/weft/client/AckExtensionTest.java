package io.weft.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AckExtensionTest {
    private final AckExtension ack = new AckExtension();

    private static ClientMessage reply(String channel, boolean successful, Map<String, Object> ext) {
        ClientMessage message = ClientMessage.of(channel);
        message.setSuccessful(successful);
        if (ext != null) {
            message.put("ext", new java.util.LinkedHashMap<>(ext));
        }
        return message;
    }

    @Test
    void asksForAcknowledgementsInTheHandshake() {
        ClientMessage handshake = ClientMessage.of("/meta/handshake");
        ack.outgoing(null, handshake);
        assertEquals(Map.of("ack", true), handshake.getExt());
    }

    @Test
    void sendsNothingWhenTheServerDoesNotAgree() {
        ack.outgoing(null, ClientMessage.of("/meta/handshake"));
        ack.incoming(null, reply("/meta/handshake", true, null));

        ClientMessage connect = ClientMessage.of("/meta/connect");
        ack.outgoing(null, connect);

        assertFalse(ack.isEnabled());
        assertNull(connect.getExt());
    }

    @Test
    void echoesTheLastBatchIdOnEachConnect() {
        ack.outgoing(null, ClientMessage.of("/meta/handshake"));
        ack.incoming(null, reply("/meta/handshake", true, Map.of("ack", true)));
        assertTrue(ack.isEnabled());

        ClientMessage first = ClientMessage.of("/meta/connect");
        ack.outgoing(null, first);
        assertEquals(-1L, first.getExt().get("ack"));

        ack.incoming(null, reply("/meta/connect", true, Map.of("ack", 4L)));
        ack.incoming(null, reply("/meta/connect", false, Map.of("ack", 9L)));
        ClientMessage second = ClientMessage.of("/meta/connect");
        ack.outgoing(null, second);
        assertEquals(4L, second.getExt().get("ack"), "an unsuccessful reply acknowledges nothing");
    }
}
