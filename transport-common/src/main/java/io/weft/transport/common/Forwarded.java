package io.weft.transport.common;

import java.net.InetSocketAddress;

/**
 * What a trusted proxy forwarded about a request ({@link TrustedProxies#read}): where the client is, and the scheme,
 * host and port the client reached the proxy at. Each is absent (null, or -1 for the port) where the proxy forwarded
 * nothing usable for it; the request then keeps what its own connection and {@code Host} say.
 *
 * @param client the client's address, with the port the proxy forwarded or else the connection's; or null
 * @param scheme {@code http} or {@code https}, or null
 * @param host the host the client asked the proxy for (an IPv6 address without brackets), or null
 * @param port the port the client reached the proxy at, or -1: where {@code host} is given, -1 is the scheme's
 *     default port; without {@code host} it goes with the request's own {@code Host}
 */
public record Forwarded(InetSocketAddress client, String scheme, String host, int port) {
    /** Whether the client reached the proxy over HTTPS, as far as the proxy said. */
    public boolean https() {
        return "https".equals(scheme);
    }
}
