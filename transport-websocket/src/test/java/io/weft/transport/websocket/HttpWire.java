package io.weft.transport.websocket;

import io.weft.server.testing.Inbox;
import io.weft.server.testing.Json;
import io.weft.server.testing.Wire;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;

/**
 * Long-polling as a browser does it, by hand: each batch is one POST of raw JSON (several may be in flight, as a held
 * {@code /meta/connect} is), with the browser's {@code Cookie} header if it has one; each response body is a batch.
 * Or callback-polling, as the official JavaScript client's JSONP does it: each batch one GET with the {@code jsonp}
 * and {@code message} parameters, each response {@code callback([...])}.
 */
final class HttpWire implements Wire {
    /** The callback name the official JavaScript client uses for its first JSONP request. */
    private static final String CALLBACK = "_cometd_jsonp_0";
    private final HttpClient http;
    private final URI uri;
    private final String cookie;
    private final boolean jsonp;
    private final Inbox inbox = new Inbox();
    private final List<Consumer<List<Map<String, Object>>>> listeners = new CopyOnWriteArrayList<>();
    private final Set<Request> inFlight = ConcurrentHashMap.newKeySet();

    /** @param jsonp whether to speak callback-polling rather than long-polling */
    HttpWire(HttpClient http, URI uri, String cookie, boolean jsonp) {
        this.http = http;
        this.uri = uri;
        this.cookie = cookie;
        this.jsonp = jsonp;
    }

    @Override
    public String connectionType() {
        return jsonp ? "callback-polling" : "long-polling";
    }

    @Override
    public void send(String batch) {
        request(batch).thenAccept(answer -> {
            List<Map<String, Object>> received = Json.array(answer);
            listeners.forEach(listener -> listener.accept(received));
            inbox.add(received);
        });
    }

    /** One request; completes with the JSON of a 200 response, or fails with the status or the failure. */
    @Override
    public CompletableFuture<String> request(String batch) {
        Request request = jsonp
                ? http.newRequest(uri).method(HttpMethod.GET).param("jsonp", CALLBACK).param("message", batch)
                : http.newRequest(uri).method(HttpMethod.POST)
                        .body(new StringRequestContent("application/json", batch, StandardCharsets.UTF_8));
        if (cookie != null) {
            request.headers(headers -> headers.put(HttpHeader.COOKIE, cookie));
        }
        CompletableFuture<String> answer = new CompletableFuture<>();
        inFlight.add(request);
        request.send(new BufferingResponseListener() {
            @Override
            public void onComplete(Result result) {
                inFlight.remove(request);
                if (!result.isSucceeded()) {
                    answer.completeExceptionally(result.getFailure());
                } else if (result.getResponse().getStatus() != 200) {
                    answer.completeExceptionally(new AssertionError("HTTP " + result.getResponse().getStatus()));
                } else {
                    answer.complete(unwrap(getContentAsString(StandardCharsets.UTF_8)));
                }
            }
        });
        return answer;
    }

    /** The JSON of a response body: as it is, or what a JSONP body passes to the callback. */
    private String unwrap(String body) {
        if (!jsonp) {
            return body;
        }
        if (!body.startsWith(CALLBACK + "(") || !body.endsWith(")")) {
            throw new AssertionError("not a JSONP response for " + CALLBACK + ": " + body);
        }
        return body.substring(CALLBACK.length() + 1, body.length() - 1);
    }

    @Override
    public Inbox inbox() {
        return inbox;
    }

    @Override
    public void onReceive(Consumer<List<Map<String, Object>>> listener) {
        listeners.add(listener);
    }

    /** Gives up every request still in flight (a held poll among them), as a closing page does. */
    @Override
    public void close() {
        for (Request request : inFlight) {
            request.abort(new Exception("page closed"));
        }
    }
}
