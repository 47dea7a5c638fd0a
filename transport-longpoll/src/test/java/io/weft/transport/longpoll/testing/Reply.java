package io.weft.transport.longpoll.testing;

import io.weft.server.testing.Json;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpFields;

/** An HTTP response as tests read it. */
public record Reply(int status, HttpFields headers, String body) {
    public String contentType() {
        return headers.get("Content-Type");
    }

    /** The body as a JSON array of Bayeux messages. */
    public List<Map<String, Object>> messages() {
        return Json.array(body);
    }

    /** The only message of the body. */
    public Map<String, Object> message() {
        List<Map<String, Object>> messages = messages();
        if (messages.size() != 1) {
            throw new AssertionError("expected one message, got " + body);
        }
        return messages.get(0);
    }

    /** The messages on {@code channel}, in order. */
    public List<Map<String, Object>> on(String channel) {
        return messages().stream().filter(m -> channel.equals(m.get("channel"))).toList();
    }
}
