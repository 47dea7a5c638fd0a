package io.weft.server.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import io.weft.server.spi.Origins.Verdict;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class OriginsTest {
    private static final Supplier<String> SERVER = () -> "https://chat.example";

    private static Verdict check(String origin, String... allowed) {
        return Origins.check(origin, SERVER, ServerOptions.builder().allowedOrigins(List.of(allowed)).build());
    }

    @Test
    void theSchemesDefaultPortIsLeftOut() {
        assertEquals("http://example.com", Origins.of("http", "example.com", 80));
        assertEquals("https://example.com", Origins.of("https", "example.com", 443));
        assertEquals("http://example.com:8080", Origins.of("http", "example.com", 8080));
        assertEquals("https://example.com:80", Origins.of("https", "example.com", 80));
        assertEquals("http://example.com:443", Origins.of("http", "example.com", 443));
        assertEquals("http://example.com", Origins.of("http", "example.com", -1), "a port the container does not know");
    }

    @Test
    void ipv6HostsAreBracketedOnce() {
        assertEquals("http://[::1]:8080", Origins.of("http", "::1", 8080));
        assertEquals("http://[::1]:8080", Origins.of("http", "[::1]", 8080), "as Jetty and Tomcat give the host");
        assertEquals("https://[2001:db8::7]", Origins.of("https", "2001:db8::7", 443));
        assertEquals("http://127.0.0.1:8080", Origins.of("http", "127.0.0.1", 8080));
    }

    @Test
    void requestsWithoutOriginOrFromTheServerItselfAreSameOrigin() {
        assertEquals(Verdict.SAME_ORIGIN, Origins.check(null, () -> {
            throw new AssertionError("the server's origin is not needed without an Origin header");
        }, ServerOptions.defaults()));
        assertEquals(Verdict.SAME_ORIGIN, check("https://chat.example"));
        assertEquals(Verdict.SAME_ORIGIN, check("HTTPS://Chat.Example"), "origins compare without regard to case");
        assertEquals(Verdict.SAME_ORIGIN, Origins.check("http://[::1]:8080", () -> Origins.of("http", "[::1]", 8080),
                ServerOptions.defaults()));
    }

    @Test
    void foreignOriginsAreRefusedUnlessAllowed() {
        assertEquals(Verdict.REFUSED, check("https://evil.example"));
        assertEquals(Verdict.REFUSED, check("http://chat.example"), "another scheme is another origin");
        assertEquals(Verdict.REFUSED, check("https://chat.example:8443"), "another port is another origin");
        assertEquals(Verdict.REFUSED, check("null"), "a sandboxed page");
        assertEquals(Verdict.REFUSED, check("https://evil.example", "https://app.example"));
        assertFalse(Verdict.REFUSED.allowed());
    }

    @Test
    void onlyOriginsListedByNameGetCredentials() {
        assertEquals(Verdict.ALLOWED_WITH_CREDENTIALS, check("https://app.example", "https://app.example"));
        assertEquals(Verdict.ALLOWED_WITH_CREDENTIALS, check("https://app.example", "*", "https://app.example"));
        assertEquals(Verdict.ALLOWED_WITHOUT_CREDENTIALS, check("https://other.example", "*", "https://app.example"));
        assertEquals(Verdict.ALLOWED_WITHOUT_CREDENTIALS, check("null", "*"));
        assertTrue(Verdict.ALLOWED_WITHOUT_CREDENTIALS.allowed());
    }
}
