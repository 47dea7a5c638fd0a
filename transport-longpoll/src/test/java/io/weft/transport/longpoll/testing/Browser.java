package io.weft.transport.longpoll.testing;

import java.net.HttpCookie;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;

/**
 * One browser talking raw Bayeux over HTTP: it keeps the browser cookie the server sets, as a browser would, and
 * sends it back. Two {@code Browser}s sharing one {@link HttpClient} are two browsers; a cookie can be copied from
 * one to the other to play two tabs, or forged to play an attacker.
 */
public final class Browser {
    public static final String COOKIE = "BAYEUX_BROWSER";
    /** A long-polling client's handshake batch. */
    public static final String HANDSHAKE = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
            + "\"supportedConnectionTypes\":[\"long-polling\"]}]";

    private final HttpClient client;
    private final URI uri;
    private final boolean keepsCookies;
    private volatile String cookie;

    public Browser(HttpClient client, URI uri) {
        this(client, uri, true);
    }

    /** @param keepsCookies whether to take the cookie the server sets (false: a client that never does) */
    public Browser(HttpClient client, URI uri, boolean keepsCookies) {
        this.client = client;
        this.uri = uri;
        this.keepsCookies = keepsCookies;
    }

    public String cookie() {
        return cookie;
    }

    public void cookie(String value) {
        this.cookie = value;
    }

    /** A POST of a JSON body, not yet sent. */
    public Request post(String json) {
        return prepare(client.newRequest(uri).method(HttpMethod.POST)
                .body(new StringRequestContent("application/json;charset=UTF-8", json)));
    }

    /** A JSONP GET, not yet sent. */
    public Request jsonp(String callback, String json) {
        return prepare(client.newRequest(uri).method(HttpMethod.GET)
                .param("jsonp", callback).param("message", json));
    }

    /** A JSONP POST of a form, not yet sent. */
    public Request jsonpForm(String callback, String json) {
        String form = "jsonp=" + encode(callback) + "&message=" + encode(json);
        return prepare(client.newRequest(uri).method(HttpMethod.POST)
                .body(new StringRequestContent("application/x-www-form-urlencoded", form)));
    }

    public Request prepare(Request request) {
        String value = cookie;
        if (value != null) {
            request.headers(h -> h.add(HttpHeader.COOKIE, COOKIE + "=" + value));
        }
        return request.timeout(30, TimeUnit.SECONDS);
    }

    /** Sends and waits for the response (at most 10 s), remembering a browser cookie the server sets. */
    public Reply send(Request request) throws Exception {
        return read(request.send());
    }

    /** Sends without waiting. */
    public CompletableFuture<Reply> sendAsync(Request request) {
        return new CompletableResponseListener(request).send().thenApply(this::read);
    }

    public Reply await(CompletableFuture<Reply> reply) throws Exception {
        return reply.get(10, TimeUnit.SECONDS);
    }

    private Reply read(ContentResponse response) {
        List<String> setCookies = keepsCookies ? response.getHeaders().getValuesList(HttpHeader.SET_COOKIE) : List.of();
        for (String header : setCookies) {
            for (HttpCookie set : HttpCookie.parse(header)) {
                if (set.getName().equals(COOKIE)) {
                    cookie = set.getValue();
                }
            }
        }
        return new Reply(response.getStatus(), response.getHeaders(), response.getContentAsString());
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
