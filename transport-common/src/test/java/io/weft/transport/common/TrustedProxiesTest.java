package io.weft.transport.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.spi.Addresses;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Trusted proxies without a socket: which peers are trusted, which forwarded entry is the client's, and what a trusted
 * proxy's headers say, garbage included.
 */
class TrustedProxiesTest {
    private static final InetSocketAddress PROXY = new InetSocketAddress(Addresses.literal("10.0.0.5"), 40000);
    private final TrustedProxies proxies = TrustedProxies.of(List.of("10.0.0.0/24", "2001:db8::/32"));

    private Forwarded read(String... headerAndValue) {
        return read(PROXY, headerAndValue);
    }

    private Forwarded read(InetSocketAddress peer, String... headerAndValue) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int i = 0; i < headerAndValue.length; i += 2) {
            headers.computeIfAbsent(headerAndValue[i].toLowerCase(Locale.ROOT), name -> new ArrayList<>())
                    .add(headerAndValue[i + 1]);
        }
        return proxies.read(peer, name -> headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of()));
    }

    private static String client(Forwarded forwarded) {
        return forwarded == null || forwarded.client() == null ? null
                : forwarded.client().getAddress().getHostAddress() + ":" + forwarded.client().getPort();
    }

    @Test
    void proxiesAreNamedByAddressOrRangeNeverByName() {
        assertTrue(proxies.trusts(Addresses.literal("10.0.0.255")));
        assertFalse(proxies.trusts(Addresses.literal("10.0.1.0")));
        assertTrue(proxies.trusts(Addresses.literal("2001:db8:ffff::1")));
        assertFalse(proxies.trusts(Addresses.literal("2001:db9::1")));
        assertFalse(proxies.trusts(null));
        assertTrue(TrustedProxies.of(List.of("0.0.0.0/0")).trusts(Addresses.literal("203.0.113.7")));
        assertFalse(TrustedProxies.of(List.of("0.0.0.0/0")).trusts(Addresses.literal("::1")), "IPv4 only");
        assertTrue(TrustedProxies.of(List.of(" 10.0.0.0/31 ")).trusts(Addresses.literal("10.0.0.1")));
        assertFalse(TrustedProxies.of(List.of("10.0.0.0/31")).trusts(Addresses.literal("10.0.0.2")));

        assertEquals("no trusted proxy named: give the proxy's IP address or range",
                assertThrows(IllegalArgumentException.class, () -> TrustedProxies.of(List.of())).getMessage());
        assertEquals("not an IP address or CIDR range (a proxy is named by its IP address, never a host name): "
                + "'proxy.example.com'", assertThrows(IllegalArgumentException.class,
                        () -> TrustedProxies.of(List.of("proxy.example.com"))).getMessage());
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.of(List.of("cafe")), "no lookup either");
        assertEquals("a prefix length from 0 to 32 after '/': '10.0.0.0/33'", assertThrows(
                IllegalArgumentException.class, () -> TrustedProxies.of(List.of("10.0.0.0/33"))).getMessage());
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.of(List.of("10.0.0.0/x")));
        assertThrows(IllegalArgumentException.class, () -> TrustedProxies.of(List.of("")));
    }

    @Test
    void theClientIsTheRightmostEntryThatIsNotATrustedProxy() {
        assertEquals("203.0.113.7", proxies.clientEntry(List.of("192.0.2.50, 203.0.113.7")));
        assertEquals("203.0.113.7", proxies.clientEntry(List.of("192.0.2.50", "203.0.113.7")), "over two lines");
        assertEquals("203.0.113.7:4711", proxies.clientEntry(List.of("192.0.2.50, 203.0.113.7:4711, 10.0.0.9")));
        assertEquals("10.0.0.7", proxies.clientEntry(List.of("10.0.0.7, 10.0.0.9")), "all trusted: the leftmost");
        assertEquals("unknown", proxies.clientEntry(List.of("192.0.2.50, unknown")), "not skipped: not trusted");
        assertNull(proxies.clientEntry(List.of(" , ")));
        assertNull(proxies.clientEntry(List.of()));

        assertEquals("for=192.0.2.50;proto=http", proxies.clientElement(List.of(
                "for=192.0.2.50;proto=http, for=\"[2001:db8:1::7]:80\";proto=https")), "2001:db8::/32 is trusted");
        assertEquals("for=192.0.2.50;host=\"a,b\"", proxies.clientElement(List.of(
                "for=192.0.2.50;host=\"a,b\", for=10.0.0.9")), "a comma in quotes separates nothing");
    }

    @Test
    void aTrustedProxysHeadersSayWhereTheClientIsAndWhatItAskedFor() {
        Forwarded forwarded = read("X-Forwarded-For", "192.0.2.50, 203.0.113.7", "X-Forwarded-Proto", "https",
                "X-Forwarded-Host", "chat.example.com");
        assertEquals("203.0.113.7:40000", client(forwarded), "the connection's port where none was forwarded");
        assertEquals(new Forwarded(forwarded.client(), "https", "chat.example.com", -1), forwarded);
        assertTrue(forwarded.https());

        assertEquals(new Forwarded(null, null, "chat.example.com", 8443),
                read("X-Forwarded-Host", "chat.example.com", "X-Forwarded-Port", "8443"));
        assertEquals(new Forwarded(null, null, "chat.example.com", 8443),
                read("X-Forwarded-Host", "chat.example.com:8443", "X-Forwarded-Port", "443"), "the host's port first");
        assertEquals(new Forwarded(null, null, null, 8443), read("X-Forwarded-Port", "8443"));
        assertEquals(new Forwarded(null, "http", "::1", 80), read("X-Forwarded-Host", "[::1]:80, evil.example",
                "X-Forwarded-Proto", "HTTP, https"), "the leftmost value, as Jetty takes it");
        assertNull(read(), "nothing forwarded");
    }

    @Test
    void theStandardHeaderComesFirstAndItsClientsElementSaysItAll() {
        Forwarded forwarded = read("Forwarded", "for=192.0.2.50;proto=http;host=evil.example, "
                + "for=\"203.0.113.7:4711\";proto=https;host=\"chat.example.com:8443\"",
                "X-Forwarded-For", "198.51.100.1", "X-Forwarded-Proto", "http", "X-Forwarded-Host", "other.example");
        assertEquals("203.0.113.7:4711", client(forwarded));
        assertEquals("https", forwarded.scheme());
        assertEquals("chat.example.com", forwarded.host());
        assertEquals(8443, forwarded.port());

        Forwarded partly = read("Forwarded", "FOR=unknown;Proto=https", "X-Forwarded-For", "198.51.100.1");
        assertEquals("198.51.100.1:40000", client(partly), "what Forwarded does not say, X-Forwarded-For does");
        assertEquals("https", partly.scheme());
        assertEquals(new Forwarded(null, null, "chat.example.com", -1), read("Forwarded", "host=chat.example.com",
                "X-Forwarded-Port", "8443"), "a forwarded host without a port is on the scheme's default port");
        assertEquals(Addresses.literal("2001:db9::7"),
                read("Forwarded", "for=\"[2001:db9::7]\"").client().getAddress());
    }

    @Test
    void malformedValuesAreNotForwardedAndNeverThrow() {
        for (String garbage : new String[] {"unknown", "_hidden", "_hidden:_port", "proxy.example.com", "cafe",
                "unix:/var/run/nginx.sock", "\"[::1\"", "192.0.2.7:99999", "192.0.2.7:", "192.0.2.7:x", "1.2.3",
                "[2001:db8::1]x", "\"", "\"\"", ";;;", "=", "for=", "\u0000\u00ff", "x".repeat(7000)}) {
            assertNull(read("X-Forwarded-For", garbage), garbage);
            assertNull(read("Forwarded", "for=" + garbage), garbage);
            assertNull(read("Forwarded", garbage), garbage);
            assertNull(read("X-Forwarded-Host", garbage + "!"), garbage);
            assertNull(read("X-Forwarded-Proto", garbage), garbage);
            assertNull(read("X-Forwarded-Port", garbage), garbage);
        }
        assertEquals("192.0.2.7:40000", client(read("Forwarded", "for=\"192.0.2.7:_abc\"")), "an obfuscated port");
        assertNull(read("X-Forwarded-Host", "[::1]:0"));
        assertNull(read("X-Forwarded-Host", "a:b:c"));
        assertNull(read("X-Forwarded-Proto", "ws"));
        assertNull(read("Forwarded", "proto=ftp;host=unknown;for=_x"));
    }

    @Test
    void manyEntriesAreReadToTheClientsOne() {
        StringBuilder list = new StringBuilder();
        for (int i = 0; i < 700; i++) {
            list.append("192.0.").append(i % 250).append('.').append(i % 200).append(", ");
        }
        assertEquals("203.0.113.7:40000", client(read("X-Forwarded-For", list + "203.0.113.7, 10.0.0.9")));
        assertEquals("203.0.113.7:40000", client(read("Forwarded", list.toString().replace("192.", "for=192.")
                + "for=203.0.113.7")));
    }

    @Test
    void anUntrustedPeersHeadersSayNothing() {
        InetSocketAddress stranger = new InetSocketAddress(Addresses.literal("192.0.2.1"), 40000);
        assertNull(read(stranger, "X-Forwarded-For", "203.0.113.7", "X-Forwarded-Proto", "https"));
        assertNull(read((InetSocketAddress) null, "X-Forwarded-For", "203.0.113.7"));
    }
}
