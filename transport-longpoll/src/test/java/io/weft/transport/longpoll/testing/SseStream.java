package io.weft.transport.longpoll.testing;

import io.weft.server.testing.Json;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;

/**
 * A Server-Sent Events stream read as a browser's {@code EventSource} reads it: one GET with
 * {@code Accept: text/event-stream}, its body split into events at blank lines, {@code data:} lines joined,
 * {@code id:} remembered (sent back as {@code Last-Event-ID} by whoever reopens), comment lines counted. Each event's
 * data is a JSON array of Bayeux messages, handed to the consumer in order.
 */
public final class SseStream implements AutoCloseable {
    private final Request request;
    private final Consumer<List<Map<String, Object>>> events;
    private final CompletableFuture<Integer> opened = new CompletableFuture<>();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private final AtomicInteger comments = new AtomicInteger();
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private volatile String contentType;
    private volatile String lastEventId;
    private volatile String lastComment;

    private SseStream(Request request, Consumer<List<Map<String, Object>>> events) {
        this.request = request;
        this.events = events;
    }

    /**
     * Opens the stream of session {@code clientId} at {@code uri}, sending {@code cookieHeader} (null: none) and
     * {@code lastEventId} (null: none); returns once the response's head arrived (the server has attached it).
     */
    public static SseStream open(HttpClient http, URI uri, String clientId, String cookieHeader, String lastEventId,
            Consumer<List<Map<String, Object>>> events) {
        return open(http.newRequest(uri).param("clientId", clientId), cookieHeader, lastEventId, events);
    }

    /**
     * Opens the stream at {@code streamUri} as it is, as the Faye client does ({@code <endpoint>/<clientId>});
     * otherwise as {@link #open(HttpClient, URI, String, String, String, Consumer)}.
     */
    public static SseStream openAt(HttpClient http, URI streamUri, String cookieHeader, String lastEventId,
            Consumer<List<Map<String, Object>>> events) {
        return open(http.newRequest(streamUri), cookieHeader, lastEventId, events);
    }

    private static SseStream open(Request request, String cookieHeader, String lastEventId,
            Consumer<List<Map<String, Object>>> events) {
        request.method(HttpMethod.GET)
                .headers(h -> h.put(HttpHeader.ACCEPT, "text/event-stream"))
                .idleTimeout(60, TimeUnit.SECONDS);
        if (cookieHeader != null) {
            request.headers(h -> h.put(HttpHeader.COOKIE, cookieHeader));
        }
        if (lastEventId != null) {
            request.headers(h -> h.put("Last-Event-ID", lastEventId));
        }
        SseStream stream = new SseStream(request, events);
        stream.send();
        stream.awaitOpen();
        return stream;
    }

    private void send() {
        request.onResponseHeaders(response -> {
            contentType = response.getHeaders().get(HttpHeader.CONTENT_TYPE);
            opened.complete(response.getStatus());
        }).onResponseContent((response, content) -> read(content)).send(result -> {
            opened.complete(result.getResponse() == null ? -1 : result.getResponse().getStatus());
            ended.complete(null);
        });
    }

    private void awaitOpen() {
        try {
            opened.get(5, TimeUnit.SECONDS);
        } catch (Exception x) {
            throw new AssertionError("the stream did not open within 5 s", x);
        }
    }

    public int status() {
        return opened.join();
    }

    public String contentType() {
        return contentType;
    }

    private void read(ByteBuffer content) {
        List<String> complete = new ArrayList<>();
        synchronized (pending) {
            while (content.hasRemaining()) {
                pending.write(content.get());
            }
            byte[] bytes = pending.toByteArray();
            int start = 0;
            for (int i = 0; i + 1 < bytes.length; i++) {
                if (bytes[i] == '\n' && bytes[i + 1] == '\n') {
                    complete.add(new String(bytes, start, i - start, StandardCharsets.UTF_8));
                    start = i + 2;
                    i++;
                }
            }
            pending.reset();
            pending.write(bytes, start, bytes.length - start);
        }
        for (String event : complete) {
            dispatch(event);
        }
    }

    private void dispatch(String event) {
        StringBuilder data = null;
        for (String line : event.split("\n", -1)) {
            if (line.startsWith(":")) {
                comments.incrementAndGet();
                lastComment = line.substring(1).strip();
            } else if (line.startsWith("id:")) {
                lastEventId = line.substring(3).strip();
            } else if (line.startsWith("data:")) {
                String value = line.substring(5);
                value = value.startsWith(" ") ? value.substring(1) : value;
                data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
            }
        }
        if (data != null) {
            events.accept(Json.array(data.toString()));
        }
    }

    /** How many comment lines (heartbeats, the closing reason) arrived so far. */
    public int comments() {
        return comments.get();
    }

    /** The text of the last comment line: a closed stream's reason. */
    public String lastComment() {
        return lastComment;
    }

    /** The id of the last event that had one, as a browser keeps it for {@code Last-Event-ID}; null if none. */
    public String lastEventId() {
        return lastEventId;
    }

    /** Completes when the server ended the response, or the stream failed. */
    public CompletableFuture<Void> ended() {
        return ended;
    }

    public boolean isEnded() {
        return ended.isDone();
    }

    /** Closes the stream as a closing page does. */
    @Override
    public void close() {
        request.abort(new Exception("stream closed by the client"));
    }
}
