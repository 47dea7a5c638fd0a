package io.weft.server.spi;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;

/**
 * Client addresses as transports get them from their containers, made into {@link InetAddress}es without a name
 * lookup: a container may give an IP literal as text (the Servlet API), or an unresolved socket address (Jetty, for an
 * address a trusted proxy forwarded).
 */
public final class Addresses {
    /** The longest literal looked at: an IPv6 address with an embedded IPv4 one, brackets and a numeric scope. */
    private static final int MAX_LITERAL = 64;

    private Addresses() {
    }

    /**
     * An IP literal as an address, without a name lookup: four decimal parts ({@code 192.0.2.7}), or an IPv6 address,
     * bare or in brackets ({@code ::1}, {@code [2001:db8::1]}); null for anything else (a host name, garbage, the
     * shorter IPv4 forms {@code 127.1} and {@code 1}). The JDK's own parser takes a word of hex digits
     * ({@code cafe}) for a host name and looks it up: nothing reaches it here that it could look up.
     */
    public static InetAddress literal(String address) {
        if (address == null || address.isEmpty() || address.length() > MAX_LITERAL) {
            return null;
        }
        String text = address;
        if (text.charAt(0) == '[') {
            if (text.charAt(text.length() - 1) != ']') {
                return null;
            }
            text = text.substring(1, text.length() - 1);
            if (text.indexOf(':') < 0) {
                return null;
            }
        }
        return text.indexOf(':') >= 0 ? ipv6(text) : ipv4(text);
    }

    private static InetAddress ipv4(String text) {
        byte[] bytes = new byte[4];
        int part = 0;
        int value = 0;
        int digits = 0;
        for (int i = 0; i <= text.length(); i++) {
            char c = i < text.length() ? text.charAt(i) : '.';
            if (c >= '0' && c <= '9' && digits < 3) {
                value = value * 10 + (c - '0');
                digits++;
            } else if (c == '.' && digits > 0 && value <= 255 && part < 4) {
                bytes[part++] = (byte) value;
                value = 0;
                digits = 0;
            } else {
                return null;
            }
        }
        return part == 4 ? byAddress(bytes) : null;
    }

    /**
     * Text with a colon that starts with a hex digit or a colon: the JDK parses it as an IPv6 literal or fails, and
     * never takes it for a name.
     */
    private static InetAddress ipv6(String text) {
        char first = text.charAt(0);
        if (!(first == ':' || Character.digit(first, 16) >= 0) || !text.chars().allMatch(c -> c == ':' || c == '.'
                || c == '%' || Character.digit(c, 16) >= 0)) {
            return null;
        }
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException x) {
            return null;
        }
    }

    private static InetAddress byAddress(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException x) {
            throw new AssertionError("four bytes are an IPv4 address", x);
        }
    }

    /** The IP address of {@code address}, resolved or an unresolved IP literal; null for anything else. */
    public static InetAddress of(SocketAddress address) {
        if (!(address instanceof InetSocketAddress inet)) {
            return null;
        }
        return inet.isUnresolved() ? literal(inet.getHostString()) : inet.getAddress();
    }

    /** {@code address} with its IP address resolved where it is an unresolved IP literal; otherwise as it is. */
    public static InetSocketAddress resolved(InetSocketAddress address) {
        if (address == null || !address.isUnresolved()) {
            return address;
        }
        InetAddress ip = literal(address.getHostString());
        return ip == null ? address : new InetSocketAddress(ip, address.getPort());
    }

    /**
     * What the per-address bounds count {@code address} under: the address itself for IPv4, its /64 prefix for IPv6
     * (one subscriber line usually owns a whole /64, so counting single IPv6 addresses would bound nothing). Keys are
     * equal when the bounds count them as one source.
     */
    public static Object key(InetAddress address) {
        if (address instanceof Inet6Address) {
            byte[] bytes = address.getAddress();
            long prefix = 0;
            for (int i = 0; i < 8; i++) {
                prefix = (prefix << 8) | (bytes[i] & 0xff);
            }
            return prefix;
        }
        return address;
    }
}
