package io.weft.server.spi;

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
}
