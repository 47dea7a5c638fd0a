package io.weft.server.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class AddressesTest {
    private static String text(String literal) {
        InetAddress address = Addresses.literal(literal);
        return address == null ? null : address.getHostAddress();
    }

    @Test
    void ipLiteralsAreAddresses() {
        assertEquals("192.0.2.7", text("192.0.2.7"));
        assertEquals("0.0.0.0", text("0.0.0.0"));
        assertEquals("255.255.255.255", text("255.255.255.255"));
        assertEquals("0:0:0:0:0:0:0:1", text("::1"));
        assertEquals("0:0:0:0:0:0:0:1", text("[::1]"), "as Jetty gives a forwarded IPv6 host");
        assertEquals("2001:db8:0:0:0:0:0:1", text("2001:db8::1"));
        assertEquals("192.0.2.7", text("::ffff:192.0.2.7"), "an IPv4-mapped address is the IPv4 address");
    }

    @Test
    void anythingElseIsNoAddressAndIsNeverLookedUp() {
        // Words of hex digits: the JDK's parser would look these up as host names.
        assertNull(text("cafe"));
        assertNull(text("beef"));
        assertNull(text("localhost"));
        assertNull(text("proxy.example.com"));
        // The JDK's shorter IPv4 forms: not what a proxy writes.
        assertNull(text("1"));
        assertNull(text("127.1"));
        assertNull(text("0x7f.0.0.1"));
        for (String garbage : new String[] {"", "256.0.0.1", "1.2.3", "1.2.3.4.", "1..2.3", "1.2.3.4:80", "0001.2.3.4",
                "unknown", "_hidden", ".1.2.3", "[1.2.3.4]", "[::1", "::1]", "1:2", ":::", "fe80::1%eth0", "1.2.3.4 ",
                "9".repeat(100), "1:".repeat(40)}) {
            assertNull(text(garbage), garbage);
        }
        assertNull(text(null));
    }

    @Test
    void anUnresolvedIpLiteralIsResolvedAndANameIsLeftAlone() {
        assertEquals("203.0.113.7", Addresses.of(InetSocketAddress.createUnresolved("203.0.113.7", 80))
                .getHostAddress());
        assertNull(Addresses.of(InetSocketAddress.createUnresolved("cafe", 80)));
        InetSocketAddress name = InetSocketAddress.createUnresolved("cafe", 80);
        assertEquals(name, Addresses.resolved(name));
    }
}
