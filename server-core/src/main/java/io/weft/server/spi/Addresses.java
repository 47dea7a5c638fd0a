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
    private Addresses() {
    }

    /** An IP literal as an address, without a name lookup; null for anything else (a host name, garbage). */
    public static InetAddress literal(String address) {
        if (address == null || address.isEmpty() || !address.chars().allMatch(c -> Character.digit(c, 16) >= 0
                || c == '.' || c == ':' || c == '[' || c == ']' || c == '%')) {
            return null;
        }
        try {
            return InetAddress.getByName(address);
        } catch (UnknownHostException x) {
            return null;
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
