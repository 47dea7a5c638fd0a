package io.weft.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The client reads replies with the server's codec, strictly: a reply batch holds messages with channels. */
class MessagesTest {
    @Test
    void decodesAnArrayOfMessagesWithJsonValues() throws IOException {
        List<Message.Mutable> messages = Messages.decode("[{\"channel\":\"/a\",\"id\":7,\"data\":{\"n\":1,"
                + "\"f\":1.5,\"t\":true,\"z\":null,\"l\":[1,\"x\"]}},{\"channel\":\"/b\",\"successful\":false}]");

        assertEquals(2, messages.size());
        Message first = messages.get(0);
        assertEquals("/a", first.getChannel());
        assertEquals("7", first.getId());
        Map<String, Object> data = first.getDataAsMap();
        assertEquals(1, ((Number) data.get("n")).intValue());
        assertEquals(1.5, data.get("f"));
        assertEquals(true, data.get("t"));
        assertTrue(data.containsKey("z"));
        assertEquals(List.of(1, "x"), data.get("l"));
        assertEquals(false, messages.get(1).isSuccessful());
    }

    @Test
    void decodesASingleMessageObject() throws IOException {
        byte[] json = "{\"channel\":\"/meta/connect\",\"successful\":true}".getBytes(StandardCharsets.UTF_8);
        assertTrue(Messages.decode(json, 0, json.length).get(0).isSuccessful());
    }

    @Test
    void rejectsWhatIsNotABatch() {
        assertThrows(IOException.class, () -> Messages.decode("not json"));
        assertThrows(IOException.class, () -> Messages.decode("[1,2]"));
        assertThrows(IOException.class, () -> Messages.decode("\"text\""));
        assertThrows(IOException.class, () -> Messages.decode("[{\"channel\":\"/a\"}"));
        assertThrows(IOException.class, () -> Messages.decode("[] []"));
        assertThrows(IOException.class, () -> Messages.decode("[{\"data\":1}]"));
    }

    @Test
    void encodesWhatItDecodes() throws IOException {
        Message.Mutable message = Messages.of("/chat/a");
        message.setData(Map.of("list", List.of(1, 2.5, "three", false), "array", new Object[] {"x"}));
        message.setId("9");

        String json = Messages.encodeText(List.of(message));
        Message back = Messages.decode(json).get(0);

        assertEquals("/chat/a", back.getChannel());
        assertEquals(List.of(1, 2.5, "three", false), back.getDataAsMap().get("list"));
        assertEquals(List.of("x"), back.getDataAsMap().get("array"));
        assertEquals(json, new String(Messages.encode(List.of(message)), StandardCharsets.UTF_8));
    }

    @Test
    void refusesValuesJsonCannotCarry() {
        Message.Mutable message = Messages.of("/chat/a");
        message.setData(new Object());
        assertThrows(RuntimeException.class, () -> Messages.encodeText(List.of(message)));
    }
}
