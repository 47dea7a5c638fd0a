package io.weft.transport.netty;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.weft.server.api.ClientRequest;
import io.weft.server.spi.Origins;
import io.weft.server.spi.RequestSnapshot;
import io.weft.transport.common.Forwarded;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a request says about its client and this server, read the same way for an exchange and an upgrade: what its
 * connection says, or, where the connection comes from a trusted proxy ({@link WeftNetty.Builder#trustProxies}), what
 * the proxy forwarded ({@link #forwarded}; what it did not forward, or forwarded garbage for, is the connection's).
 */
final class Requests {
    private Requests() {
    }

    /**
     * What a trusted proxy forwarded about {@code request}; null where no proxy is trusted, the connection's peer is
     * not one, or it forwarded nothing usable. Read once per request.
     */
    static Forwarded forwarded(HttpRequest request, Channel channel, Mount mount) {
        if (mount.proxies == null || !(channel.remoteAddress() instanceof InetSocketAddress peer)) {
            return null;
        }
        return mount.proxies.read(peer, name -> request.headers().getAll(name));
    }

    /** The client's address and port: the forwarded one, or the connection's peer; null if unknown. */
    static InetSocketAddress client(Channel channel, Forwarded forwarded) {
        if (forwarded != null && forwarded.client() != null) {
            return forwarded.client();
        }
        return channel.remoteAddress() instanceof InetSocketAddress inet ? inet : null;
    }

    /** The client's address: the forwarded one, or the connection's peer; null if unknown. */
    static InetAddress remoteAddress(Channel channel, Forwarded forwarded) {
        InetSocketAddress client = client(channel, forwarded);
        return client == null ? null : client.getAddress();
    }

    /** Whether the client reached us over HTTPS: the connection's TLS, or the proxy's as it forwarded. */
    static boolean secure(Mount mount, Forwarded forwarded) {
        return mount.secure() || forwarded != null && forwarded.https();
    }

    /**
     * This server's origin as the request named it: the forwarded scheme, host and port where a trusted proxy gave
     * them, else the connection's scheme and the request's {@code Host} (or where the connection reached us, without
     * one); the port left out where it is the scheme's default.
     */
    static String serverOrigin(HttpRequest request, Channel channel, Mount mount, Forwarded forwarded) {
        String scheme = forwarded != null && forwarded.scheme() != null ? forwarded.scheme()
                : mount.secure() ? "https" : "http";
        int defaultPort = scheme.equals("https") ? 443 : 80;
        if (forwarded != null && forwarded.host() != null) {
            return Origins.of(scheme, forwarded.host(), forwarded.port() > 0 ? forwarded.port() : defaultPort);
        }
        int forwardedPort = forwarded == null ? -1 : forwarded.port();
        String host = request.headers().get(HttpHeaderNames.HOST);
        InetSocketAddress local = channel.localAddress() instanceof InetSocketAddress inet ? inet : null;
        if (host == null || host.isEmpty()) {
            int localPort = local == null ? -1 : local.getPort();
            return Origins.of(scheme, local == null ? "localhost" : local.getAddress().getHostAddress(),
                    forwardedPort > 0 ? forwardedPort : localPort);
        }
        String name = host;
        int port = defaultPort;
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
        return Origins.of(scheme, name, forwardedPort > 0 ? forwardedPort : port);
    }

    private static int port(String text, int otherwise) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException x) {
            return otherwise;
        }
    }

    /**
     * What the request carried, but for the headers named in {@code leaveOut} (lower case), for the session: its
     * client's address and scheme as {@link #client} and {@link #secure} read them.
     */
    static ClientRequest snapshot(HttpRequest request, Channel channel, Mount mount, Forwarded forwarded,
            Set<String> leaveOut) {
        RequestSnapshot.Builder copy = RequestSnapshot.builder();
        for (Map.Entry<String, String> header : request.headers()) {
            if (!leaveOut.contains(header.getKey().toLowerCase(Locale.ROOT))) {
                copy.header(header.getKey(), header.getValue());
            }
        }
        InetSocketAddress client = client(channel, forwarded);
        if (client != null) {
            copy.remoteAddress(client);
        }
        return copy.secure(secure(mount, forwarded)).build();
    }
}
