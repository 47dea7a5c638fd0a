package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.server.testing.Inbox;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.longpoll.testing.Browser;
import io.weft.transport.longpoll.testing.HttpWire;
import io.weft.transport.longpoll.testing.Reply;
import io.weft.transport.longpoll.testing.SseStream;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.client.HttpClient;

/**
 * A browser's page speaking eventsource step by step, for tests that look at each step: its cookie, its session, its
 * stream and what the stream received; each request's HTTP answer is returned.
 */
final class StreamPage implements AutoCloseable {
    final Browser browser;
    final Inbox inbox = new Inbox();
    private final HttpClient http;
    private final URI uri;
    /** Builds this page's messages (ids, clientId); they go by {@link #post}, with their HTTP answer. */
    private final ScriptedClient scripted;
    String clientId;
    SseStream stream;

    StreamPage(HttpClient http, URI uri) {
        this.http = http;
        this.uri = uri;
        this.browser = new Browser(http, uri);
        this.scripted = HttpWire.client(browser);
    }

    /** Handshakes (with {@code ext}, or none) and keeps the clientId. */
    StreamPage handshake(Map<String, Object> ext) throws Exception {
        Map<String, Object> handshake = message("/meta/handshake", "version", "1.0",
                "supportedConnectionTypes", List.of("eventsource"));
        if (ext != null) {
            handshake.put("ext", ext);
        }
        Map<String, Object> reply = post(handshake).message();
        assertEquals(true, reply.get("successful"), reply.toString());
        clientId = (String) reply.get("clientId");
        return this;
    }

    /** Opens the session's stream, resuming after {@code lastEventId} (null: none). */
    StreamPage open(String lastEventId) {
        stream = SseStream.open(http, uri, clientId, cookieHeader(), lastEventId, inbox::add);
        return this;
    }

    /** Opens the session's stream at {@code <endpoint>/<clientId>}, as the Faye client asks for it. */
    StreamPage openAsFaye() {
        stream = SseStream.openAt(http, URI.create(uri + "/" + clientId), cookieHeader(), null, inbox::add);
        return this;
    }

    String cookieHeader() {
        return Browser.COOKIE + "=" + browser.cookie();
    }

    Reply post(Map<String, Object> message) throws Exception {
        return browser.send(browser.post(Json.write(List.of(message))));
    }

    /** A {@code /meta/connect} by POST, its reply expected on the stream; returns the POST's own answer. */
    Reply connect(Object... fields) throws Exception {
        Map<String, Object> connect = message("/meta/connect", "connectionType", "eventsource");
        for (int i = 0; i < fields.length; i += 2) {
            connect.put((String) fields[i], fields[i + 1]);
        }
        return post(connect);
    }

    Map<String, Object> message(String channel, Object... fields) {
        return scripted.resume(clientId).message(channel, fields);
    }

    /** The next message on {@code channel} that the stream received, within 5 s. */
    Map<String, Object> take(String channel, String what) {
        return inbox.take(Inbox.channel(channel), 5, what);
    }

    @Override
    public void close() {
        if (stream != null) {
            stream.close();
        }
    }
}
