package io.weft.transport.websocket;

import io.weft.server.testing.Json;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 */
final class HttpWire implements Wire {
    private final HttpClient http;
    private final URI uri;
    private final String cookie;
    private final Inbox inbox = new Inbox();
    private final List<Consumer<List<Map<String, Object>>>> listeners = new CopyOnWriteArrayList<>();
    private final Set<Request> inFlight = ConcurrentHashMap.newKeySet();

    HttpWire(HttpClient http, URI uri, String cookie) {
        this.http = http;
        this.uri = uri;
        this.cookie = cookie;
    }

    @Override
    public String connectionType() {
        return "long-polling";
    }

    @Override
    public void send(String batch) {
        Request request = http.newRequest(uri).method(HttpMethod.POST)
                .body(new StringRequestContent("application/json", batch, StandardCharsets.UTF_8));
        if (cookie != null) {
            request.headers(headers -> headers.put(HttpHeader.COOKIE, cookie));
        }
        inFlight.add(request);
        request.send(new BufferingResponseListener() {
            @Override
            public void onComplete(Result result) {
                inFlight.remove(request);
                if (result.isSucceeded() && result.getResponse().getStatus() == 200) {
                    List<Map<String, Object>> received = Json.array(getContentAsString(StandardCharsets.UTF_8));
                    listeners.forEach(listener -> listener.accept(received));
                    inbox.add(received);
                }
            }
        });
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
