package io.weft.transport.netty;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.weft.server.api.ClientRequest;
import io.weft.server.spi.Origins;
import io.weft.server.spi.RequestSnapshot;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;

/** What a request says about its client and this server, read the same way for an exchange and an upgrade. */
final class Requests {
    private Requests() {
    }

    /** The client's address: the connection's peer (the Netty mount trusts no forwarded headers). */
    static InetAddress remoteAddress(Channel channel) {
        return channel.remoteAddress() instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }

    /**
     * This server's origin as the request named it ({@code Host}), or as the connection reached it without one; the
     * port left out where it is the scheme's default.
     */
    static String serverOrigin(HttpRequest request, Channel channel, boolean secure) {
        String scheme = secure ? "https" : "http";
        String host = request.headers().get(HttpHeaderNames.HOST);
        InetSocketAddress local = channel.localAddress() instanceof InetSocketAddress inet ? inet : null;
        int localPort = local == null ? -1 : local.getPort();
        if (host == null || host.isEmpty()) {
            return Origins.of(scheme, local == null ? "localhost" : local.getAddress().getHostAddress(), localPort);
        }
        String name = host;
        int port = secure ? 443 : 80;
        int colon = host.lastIndexOf(':');
        if (host.startsWith("[")) {
            int close = host.indexOf(']');
            if (close > 0) {
                name = host.substring(1, close);
                if (close + 1 < host.length() && host.charAt(close + 1) == ':') {
                    port = port(host.substring(close + 2), port);
                }
            }
        } else if (colon > 0) {
            name = host.substring(0, colon);
            port = port(host.substring(colon + 1), port);
        }
        return Origins.of(scheme, name, port);
    }

    private static int port(String text, int otherwise) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException x) {
            return otherwise;
        }
    }

    /** What the request carried, but for the headers named in {@code leaveOut} (lower case), for the session. */
    static ClientRequest snapshot(HttpRequest request, Channel channel, boolean secure, Set<String> leaveOut) {
        RequestSnapshot.Builder copy = RequestSnapshot.builder();
        for (Map.Entry<String, String> header : request.headers()) {
            if (!leaveOut.contains(header.getKey().toLowerCase(java.util.Locale.ROOT))) {
                copy.header(header.getKey(), header.getValue());
            }
        }
        if (channel.remoteAddress() instanceof InetSocketAddress address) {
            copy.remoteAddress(address);
        }
        return copy.secure(secure).build();
    }
}
