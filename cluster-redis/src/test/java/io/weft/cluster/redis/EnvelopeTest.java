package io.weft.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EnvelopeTest {
    @Test
    void theHeaderNamesTheNodeAndTheNumberAndTheJsonFollowsUnchanged() {
        byte[] json = "[{\"channel\":\"/a\",\"data\":1}]".getBytes(StandardCharsets.UTF_8);
        byte[] payload = Envelope.wrap(Envelope.prefix("Xq3v_8RkTfA"), 1742, json);
        assertEquals("Xq3v_8RkTfA 1742\n[{\"channel\":\"/a\",\"data\":1}]",
                new String(payload, StandardCharsets.UTF_8));
        Envelope envelope = Envelope.read(payload);
        assertEquals(new Envelope("Xq3v_8RkTfA", 1742, 17), envelope);
        assertEquals(new String(json, StandardCharsets.UTF_8), new String(payload, envelope.jsonOffset(),
                payload.length - envelope.jsonOffset(), StandardCharsets.UTF_8));
    }

    @Test
    void aPayloadWithoutAHeaderIsNotAnEnvelope() {
        for (String payload : new String[] {"[{\"channel\":\"/a\"}]", "node\n[]", " 12\n[]", "node \n[]", "node 1x\n[]",
                "node 99999999999999999999\n[]", "node 12"}) {
            assertNull(Envelope.read(payload.getBytes(StandardCharsets.UTF_8)), payload);
        }
    }
}
