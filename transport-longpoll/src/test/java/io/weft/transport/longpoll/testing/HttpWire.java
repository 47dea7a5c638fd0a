package io.weft.transport.longpoll.testing;

import io.weft.server.testing.Inbox;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import io.weft.server.testing.Wire;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.http.HttpHeader;

/**
 * The scripted client's HTTP wire ({@link ScriptedClient} over it): long-polling as a browser does it by hand, each
 * batch one POST of raw JSON (several may be in flight, as a held {@code /meta/connect} is), each response body a
 * batch; or callback-polling as the official JavaScript client's JSONP does it, each batch one GET with the
 * {@code jsonp} and {@code message} parameters (or, as older clients do, a form POST of them), each under a callback
 * name of its own ({@code _cometd_jsonp_0}, {@code _1}, ...), each response the script {@code callback([...])}, which
 * the wire checks as a browser would run it (JavaScript, {@code nosniff}, the callback it asked for).
 *
 * <p>Cookies two ways: a {@link Browser} keeps the browser cookie the server sets and sends it back
 * ({@link #of(Browser, boolean)}); a fixed {@code Cookie} header, or none, plays a client that sends exactly that
 * whatever the server sets ({@link #HttpWire(HttpClient, URI, String, boolean)}).
 */
public final class HttpWire implements Wire {
    /** How batches go over HTTP. */
    public enum Kind {
        /** long-polling: a POST of the JSON batch. */
        LONG_POLLING,
        /** callback-polling: a GET with {@code jsonp} and {@code message} parameters. */
        JSONP_GET,
        /** callback-polling: a form POST of the same parameters. */
        JSONP_FORM
    }

    /** The callback names the official JavaScript client gives its JSONP requests, numbered from 0. */
    private static final String CALLBACK = "_cometd_jsonp_";
    private final Browser browser;
    private final String cookieHeader;
    private final Kind kind;
    private final AtomicInteger callbacks = new AtomicInteger();
    private final Inbox inbox = new Inbox();
    private final List<Consumer<List<Map<String, Object>>>> listeners = new CopyOnWriteArrayList<>();
    private final Set<Request> inFlight = ConcurrentHashMap.newKeySet();

    /**
     * A client that sends {@code cookieHeader} as its whole {@code Cookie} header (null: none) and never another.
     *
     * @param jsonp whether to speak callback-polling rather than long-polling
     */
    public HttpWire(HttpClient http, URI uri, String cookieHeader, boolean jsonp) {
        this(new Browser(http, uri, false), cookieHeader, jsonp ? Kind.JSONP_GET : Kind.LONG_POLLING);
    }

    private HttpWire(Browser browser, String cookieHeader, Kind kind) {
        this.browser = browser;
        this.cookieHeader = cookieHeader;
        this.kind = kind;
    }

    /** A wire of {@code browser}, which keeps the browser cookie the server sets. */
    public static HttpWire of(Browser browser, Kind kind) {
        return new HttpWire(browser, null, kind);
    }

    /** A scripted long-polling client in {@code browser}. */
    public static ScriptedClient client(Browser browser) {
        return new ScriptedClient(of(browser, Kind.LONG_POLLING));
    }

    public Browser browser() {
        return browser;
    }

    @Override
    public String connectionType() {
        return kind == Kind.LONG_POLLING ? "long-polling" : "callback-polling";
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
        String callback = CALLBACK + callbacks.getAndIncrement();
        Request request = switch (kind) {
            case LONG_POLLING -> browser.post(batch);
            case JSONP_GET -> browser.jsonp(callback, batch);
            case JSONP_FORM -> browser.jsonpForm(callback, batch);
        };
        if (cookieHeader != null) {
            request.headers(headers -> headers.put(HttpHeader.COOKIE, cookieHeader));
        }
        inFlight.add(request);
        return browser.sendAsync(request).whenComplete((reply, failure) -> inFlight.remove(request))
                .thenApply(reply -> {
                    if (reply.status() != 200) {
                        throw new AssertionError("HTTP " + reply.status() + ": " + reply.body());
                    }
                    return kind == Kind.LONG_POLLING ? reply.body() : unwrap(callback, reply);
                });
    }

    /** Checks the script a browser would run and returns the JSON array it passes to the callback. */
    private static String unwrap(String callback, Reply reply) {
        String body = reply.body();
        if (reply.contentType() == null || !reply.contentType().startsWith("text/javascript")
                || !"nosniff".equals(reply.headers().get("X-Content-Type-Options"))) {
            throw new AssertionError("not a script a browser would run: " + reply.headers());
        }
        if (!body.startsWith(callback + "([") || !body.endsWith("])")) {
            throw new AssertionError("not a JSONP response for " + callback + ": " + body);
        }
        return body.substring(callback.length() + 1, body.length() - 1);
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
