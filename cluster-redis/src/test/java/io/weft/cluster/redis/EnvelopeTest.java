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
    void aPublishWithHistoryCarriesItsEpochAndOffsetInTheHeader() {
        byte[] json = "[{\"channel\":\"/a\"}]".getBytes(StandardCharsets.UTF_8);
        byte[] payload = Envelope.wrap(Envelope.prefix("Xq3v_8RkTfA"), 1743, "kq2Lw0aZ9Xb1Y3cD", 17, json);
        assertEquals("Xq3v_8RkTfA 1743 kq2Lw0aZ9Xb1Y3cD 17\n[{\"channel\":\"/a\"}]",
                new String(payload, StandardCharsets.UTF_8), "as the history script writes it");
        assertEquals(new Envelope("Xq3v_8RkTfA", 1743, "kq2Lw0aZ9Xb1Y3cD", 17, 37), Envelope.read(payload));
        for (String bad : new String[] {"n 1 e\n[]", "n 1 e 0\n[]", "n 1  5\n[]", "n 1 e 5 6\n[]", "n 1 e x\n[]"}) {
            assertNull(Envelope.read(bad.getBytes(StandardCharsets.UTF_8)), bad);
        }
    }

    @Test
    void aPayloadWithoutAHeaderIsNotAnEnvelope() {
        for (String payload : new String[] {"[{\"channel\":\"/a\"}]", "node\n[]", " 12\n[]", "node \n[]", "node 1x\n[]",
                "node 99999999999999999999\n[]", "node 12"}) {
            assertNull(Envelope.read(payload.getBytes(StandardCharsets.UTF_8)), payload);
        }
    }
}
