package io.weft.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClientCodecTest {
    @Test
    void decodesAnArrayOfMessagesWithJsonValues() throws IOException {
        List<ClientMessage> messages = ClientCodec.decode("[{\"channel\":\"/a\",\"id\":7,\"data\":{\"n\":1,"
                + "\"f\":1.5,\"t\":true,\"z\":null,\"l\":[1,\"x\"]}},{\"channel\":\"/b\",\"successful\":false}]");

        assertEquals(2, messages.size());
        ClientMessage first = messages.get(0);
        assertEquals("/a", first.getChannel());
        assertEquals("7", first.getId());
        Map<String, Object> data = first.getDataAsMap();
        assertEquals(1L, data.get("n"));
        assertEquals(1.5, data.get("f"));
        assertEquals(true, data.get("t"));
        assertTrue(data.containsKey("z"));
        assertEquals(List.of(1L, "x"), data.get("l"));
        assertEquals(false, messages.get(1).isSuccessful());
    }

    @Test
    void decodesASingleMessageObject() throws IOException {
        byte[] json = "{\"channel\":\"/meta/connect\",\"successful\":true}".getBytes(StandardCharsets.UTF_8);
        assertTrue(ClientCodec.decode(json, 0, json.length).get(0).isSuccessful());
    }

    @Test
    void rejectsWhatIsNotABatch() {
        assertThrows(IOException.class, () -> ClientCodec.decode("not json"));
        assertThrows(IOException.class, () -> ClientCodec.decode("[1,2]"));
        assertThrows(IOException.class, () -> ClientCodec.decode("\"text\""));
        assertThrows(IOException.class, () -> ClientCodec.decode("[{\"channel\":\"/a\"}"));
        assertThrows(IOException.class, () -> ClientCodec.decode("[] []"));
    }

    @Test
    void encodesWhatItDecodes() throws IOException {
        ClientMessage message = ClientMessage.of("/chat/a");
        message.setData(Map.of("list", List.of(1, 2.5, "three", false), "array", new Object[] {"x"}));
        message.setId("9");

        String json = ClientCodec.encodeText(List.of(message));
        ClientMessage back = ClientCodec.decode(json).get(0);

        assertEquals("/chat/a", back.getChannel());
        assertEquals(List.of(1L, 2.5, "three", false), back.getDataAsMap().get("list"));
        assertEquals(List.of("x"), back.getDataAsMap().get("array"));
        assertEquals(json, new String(ClientCodec.encode(List.of(message)), StandardCharsets.UTF_8));
    }

    @Test
    void refusesValuesJsonCannotCarry() {
        ClientMessage message = ClientMessage.of("/chat/a");
        message.setData(new Object());
        assertThrows(IllegalArgumentException.class, () -> ClientCodec.encodeText(List.of(message)));
    }
}
