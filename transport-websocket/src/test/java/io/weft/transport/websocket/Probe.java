package io.weft.transport.websocket;

import io.weft.server.testing.Await;
import io.weft.server.testing.Json;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;

/**
 * A hostile client's single shot over one connection type: one request body or one frame, and what came of it, within
 * a deadline. For the hostile-client suite, which asserts that whatever is sent, the answer is a Bayeux reply, a 4xx
 * or a close with a reason, soon: never a 500, a hang or a stack trace.
 */
final class Probe implements AutoCloseable {
    /** How long any answer may take. */
    static final long ANSWER_SECONDS = 3;

    private final Kind kind;
    private final BayeuxHost server;
    private final Clients clients;
    private final String cookie;
    private RawSocket socket;

    /** The connection types a probe speaks: the suite runs over each. */
    enum Kind {
        WEBSOCKET("websocket"), LONG_POLLING("long-polling"), CALLBACK_POLLING("callback-polling");

        final String connectionType;

        Kind(String connectionType) {
            this.connectionType = connectionType;
        }
    }

    /**
     * What came back. {@code status} is 200 with the {@code replies} for an answered HTTP request, the HTTP status of
     * a refused one, 0 with the replies for a WebSocket frame, or the WebSocket close code; {@code body} is what the
     * client saw (a refusal's text, or the close reason).
     */
    record Outcome(int status, String body, List<Map<String, Object>> replies) {
        boolean answered() {
            return replies != null;
        }

        Map<String, Object> first() {
            if (replies == null || replies.isEmpty()) {
                throw new AssertionError("no reply: " + this);
            }
            return replies.get(0);
        }
    }

    Probe(Kind kind, BayeuxHost server, Clients clients, String cookie) {
        this.kind = kind;
        this.server = server;
        this.clients = clients;
        this.cookie = cookie;
    }

    Kind kind() {
        return kind;
    }

    /** Sends one batch and waits for its answer; a WebSocket probe keeps its socket for the next. */
    Outcome send(String batch) throws Exception {
        return switch (kind) {
            case WEBSOCKET -> frame(batch);
            case LONG_POLLING -> http(clients.http().newRequest(server.httpUri()).method(HttpMethod.POST)
                    .body(new StringRequestContent("application/json", batch, StandardCharsets.UTF_8)), false);
            case CALLBACK_POLLING -> http(clients.http().newRequest(server.httpUri() + "?jsonp=cb&message="
                    + URLEncoder.encode(batch, StandardCharsets.UTF_8)).method(HttpMethod.GET), true);
        };
    }

    private Outcome http(Request request, boolean jsonp) throws Exception {
        if (cookie != null) {
            request.headers(headers -> headers.put(HttpHeader.COOKIE, cookie));
        }
        ContentResponse response = request.timeout(ANSWER_SECONDS, TimeUnit.SECONDS).send();
        String body = response.getContentAsString();
        if (response.getStatus() != 200) {
            return new Outcome(response.getStatus(), body, null);
        }
        if (jsonp) {
            if (!body.startsWith("cb(") || !body.endsWith(")")) {
                throw new AssertionError("not a JSONP answer: " + body);
            }
            body = body.substring(3, body.length() - 1);
        }
        return new Outcome(200, body, Json.array(body));
    }

    private Outcome frame(String batch) throws Exception {
        if (socket == null) {
            socket = RawSocket.connect(clients.webSocket(), server.wsUri(), cookie);
        }
        if (!socket.isOpen()) {
            RawSocket.Closed closed = socket.awaitClose(ANSWER_SECONDS);
            return new Outcome(closed.code(), closed.reason(), null);
        }
        socket.send(batch);
        Await.until(Duration.ofSeconds(ANSWER_SECONDS), () -> !socket.inbox().snapshot().isEmpty() || !socket.isOpen(),
                "an answer to a frame, or the socket's close: " + shorten(batch));
        Map<String, Object> first = socket.inbox().poll(message -> true, 0);
        if (first == null) {
            RawSocket.Closed closed = socket.awaitClose(ANSWER_SECONDS);
            return new Outcome(closed.code(), closed.reason(), null);
        }
        // A frame's messages reach the inbox together: the rest of the answer is there already.
        List<Map<String, Object>> answer = new ArrayList<>(List.of(first));
        Map<String, Object> more;
        while ((more = socket.inbox().poll(message -> true, 0)) != null) {
            answer.add(more);
        }
        return new Outcome(0, Json.write(answer), answer);
    }

    static String shorten(String text) {
        return text.length() > 200 ? text.substring(0, 200) + "... (" + text.length() + " chars)" : text;
    }

    @Override
    public void close() {
        if (socket != null) {
            socket.close();
        }
    }
}
