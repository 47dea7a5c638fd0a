package io.weft.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.URI;
import org.junit.jupiter.api.Test;

class CookieJarTest {
    private static final URI URI_ = URI.create("http://127.0.0.1:8080/cometd");

    @Test
    void keepsTheBrowserCookieAndSendsItBack() {
        CookieJar jar = new CookieJar();
        assertNull(jar.header(URI_));

        jar.store(URI_, "BAYEUX_BROWSER=abc123; Path=/; HttpOnly; SameSite=Lax");

        assertEquals("BAYEUX_BROWSER=abc123", jar.header(URI_));
        assertEquals("abc123", jar.value("BAYEUX_BROWSER"));
    }

    @Test
    void eachJarIsItsOwnBrowser() {
        CookieJar alice = new CookieJar();
        CookieJar bob = new CookieJar();
        alice.store(URI_, "BAYEUX_BROWSER=alice; Path=/");
        bob.store(URI_, "BAYEUX_BROWSER=bob; Path=/");

        assertEquals("BAYEUX_BROWSER=alice", alice.header(URI_));
        assertEquals("BAYEUX_BROWSER=bob", bob.header(URI_));
    }
}
