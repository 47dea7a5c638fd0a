package io.weft.client;

import java.net.URI;
import java.util.List;
import org.eclipse.jetty.http.HttpCookie;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.SetCookieParser;

/**
 * The cookies of one {@link BayeuxClient}, shared by its transports. A Bayeux server binds a session to the browser
 * cookie it sets at handshake ({@code BAYEUX_BROWSER} on Weft and CometD), so each simulated client must have its own
 * jar: the HttpClient that thousands of clients share keeps none ({@link HttpCookieStore.Empty}). Thread-safe.
 */
final class CookieJar {
    private final HttpCookieStore store = new HttpCookieStore.Default();
    private final SetCookieParser parser = SetCookieParser.newInstance();

    /** The value of a {@code Cookie} header for a request to {@code uri}, or null when no cookie matches. */
    String header(URI uri) {
        List<HttpCookie> cookies = store.match(uri);
        if (cookies.isEmpty()) {
            return null;
        }
        StringBuilder header = new StringBuilder();
        for (HttpCookie cookie : cookies) {
            if (header.length() > 0) {
                header.append("; ");
            }
            header.append(cookie.getName()).append('=').append(cookie.getValue());
        }
        return header.toString();
    }

    /** Keeps the cookie of one {@code Set-Cookie} header received from {@code uri}; a malformed one is ignored. */
    void store(URI uri, String setCookie) {
        HttpCookie cookie = parser.parse(setCookie);
        if (cookie != null) {
            store.add(uri, cookie);
        }
    }

    /** The value of the cookie named {@code name}, or null. */
    String value(String name) {
        for (HttpCookie cookie : store.all()) {
            if (cookie.getName().equals(name)) {
                return cookie.getValue();
            }
        }
        return null;
    }
}
