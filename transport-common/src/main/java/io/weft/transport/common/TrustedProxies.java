package io.weft.transport.common;

import io.weft.server.spi.Addresses;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The reverse proxies a server trusts, by IP address or CIDR range, and what their forwarded headers say. A request
 * whose connection comes from one of them is read with what the proxy forwarded ({@link #read}); anyone else's
 * {@code Forwarded} and {@code X-Forwarded-*} headers are their own word and change nothing. Shared by every mount that
 * trusts proxies: transport-longpoll's Jetty customizer (which leaves the rest to Jetty's
 * {@code ForwardedRequestCustomizer}) and transport-netty (which reads it all here).
 *
 * <p>A proxy that appends to {@code X-Forwarded-For} (nginx's {@code $proxy_add_x_forwarded_for}) passes on what the
 * client itself sent, in front of the address it saw. The client is therefore the rightmost entry that is not a
 * trusted proxy ({@link #clientEntry}), not the leftmost; the same goes for the elements of {@code Forwarded}
 * ({@link #clientElement}). So a client cannot choose the address it is counted under. Immutable and thread-safe.
 */
public final class TrustedProxies {
    private final List<Range> ranges;

    private TrustedProxies(List<Range> ranges) {
        this.ranges = ranges;
    }

    /**
     * The proxies at {@code addresses}: IP addresses ({@code 10.0.0.5}, {@code ::1}) or ranges in CIDR notation
     * ({@code 10.0.0.0/8}, {@code fd00::/8}), never host names (no lookup happens here).
     *
     * @throws IllegalArgumentException if there is none, or one is neither
     */
    public static TrustedProxies of(Iterable<String> addresses) {
        List<Range> ranges = new ArrayList<>();
        for (String address : Objects.requireNonNull(addresses, "addresses")) {
            ranges.add(Range.parse(address));
        }
        if (ranges.isEmpty()) {
            throw new IllegalArgumentException("no trusted proxy named: give the proxy's IP address or range");
        }
        return new TrustedProxies(List.copyOf(ranges));
    }

    /** Whether a connection from {@code address} comes from a trusted proxy; false for null. */
    public boolean trusts(InetAddress address) {
        if (address == null) {
            return false;
        }
        for (Range range : ranges) {
            if (range.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Of {@code X-Forwarded-For}'s comma-separated entries ({@code lines}: each line of the header, in order), the one
     * the client's side of the nearest trusted proxies added: the rightmost whose address is not a trusted proxy (all
     * trusted: the leftmost). As it was written ({@code 192.0.2.7:5000} keeps its port, garbage stays garbage); null if
     * the header has no entry.
     */
    public String clientEntry(List<String> lines) {
        return chosen(lines, ForwardedSyntax::entryAddress);
    }

    /**
     * Of {@code Forwarded}'s comma-separated elements ({@code lines}: each line of the header, in order), the one the
     * client's side of the nearest trusted proxies added, by the address in its {@code for=}: the rightmost that is
     * not a trusted proxy (all trusted: the leftmost). As it was written; null if the header has no element.
     */
    public String clientElement(List<String> lines) {
        return chosen(lines, element -> ForwardedSyntax.entryAddress(ForwardedSyntax.parameter(element, "for")));
    }

    private String chosen(List<String> lines, Function<String, String> addressOf) {
        if (lines == null || lines.isEmpty()) {
            return null;
        }
        List<String> entries = new ArrayList<>();
        for (String line : lines) {
            ForwardedSyntax.split(line, ',', entries);
        }
        for (int i = entries.size() - 1; i >= 0; i--) {
            if (!trusts(Addresses.literal(addressOf.apply(entries.get(i))))) {
                return entries.get(i);
            }
        }
        return entries.isEmpty() ? null : entries.get(0);
    }

    /**
     * What the forwarded headers of a request whose connection comes from {@code peer} say, where {@code peer} is a
     * trusted proxy: {@code Forwarded} ({@link #clientElement its client's element}: {@code for=}, {@code proto=},
     * {@code host=}) first, {@code X-Forwarded-For} ({@link #clientEntry}), {@code -Proto}, {@code -Host} and
     * {@code -Port} (their leftmost values) for what it does not say, as Jetty's {@code ForwardedRequestCustomizer}
     * ranks them. A value that is not what it should be (garbage, {@code unknown}, an obfuscated identifier, a unix
     * socket, a scheme other than http or https) counts as not forwarded: the request keeps what its connection says.
     *
     * @param headers every line of a request header, by name (case-insensitive); empty or null if none
     * @return null if {@code peer} is not a trusted proxy, or it forwarded nothing usable
     */
    public Forwarded read(InetSocketAddress peer, Function<String, List<String>> headers) {
        if (peer == null || !trusts(peer.getAddress())) {
            return null;
        }
        String element = clientElement(headers.apply("Forwarded"));
        InetSocketAddress client = null;
        String scheme = null;
        ForwardedSyntax.Authority authority = null;
        if (element != null) {
            client = ForwardedSyntax.node(ForwardedSyntax.parameter(element, "for"), peer.getPort());
            scheme = ForwardedSyntax.scheme(ForwardedSyntax.parameter(element, "proto"));
            authority = ForwardedSyntax.authority(ForwardedSyntax.parameter(element, "host"));
        }
        if (client == null) {
            client = ForwardedSyntax.node(clientEntry(headers.apply("X-Forwarded-For")), peer.getPort());
        }
        if (scheme == null) {
            scheme = ForwardedSyntax.scheme(ForwardedSyntax.leftmost(headers.apply("X-Forwarded-Proto")));
        }
        int forwardedPort = ForwardedSyntax.port(ForwardedSyntax.leftmost(headers.apply("X-Forwarded-Port")));
        if (authority == null) {
            authority = ForwardedSyntax.authority(ForwardedSyntax.leftmost(headers.apply("X-Forwarded-Host")));
            if (authority != null && authority.port() < 0 && forwardedPort > 0) {
                authority = new ForwardedSyntax.Authority(authority.host(), forwardedPort);
            }
        }
        String host = authority == null ? null : authority.host();
        int port = authority == null ? forwardedPort : authority.port();
        if (client == null && scheme == null && host == null && port < 0) {
            return null;
        }
        return new Forwarded(client, scheme, host, port);
    }

    @Override
    public String toString() {
        return "TrustedProxies" + ranges;
    }

    /** An IP address and the number of leading bits that must match. */
    private record Range(byte[] network, int bits, String text) {
        static Range parse(String text) {
            String value = text == null ? "" : text.trim();
            int slash = value.indexOf('/');
            InetAddress address = Addresses.literal(slash < 0 ? value : value.substring(0, slash));
            if (address == null) {
                throw new IllegalArgumentException("not an IP address or CIDR range (a proxy is named by its IP "
                        + "address, never a host name): '" + text + "'");
            }
            byte[] network = address.getAddress();
            int bits = network.length * 8;
            if (slash >= 0) {
                try {
                    bits = Integer.parseInt(value.substring(slash + 1));
                } catch (NumberFormatException x) {
                    bits = -1;
                }
                if (bits < 0 || bits > network.length * 8) {
                    throw new IllegalArgumentException("a prefix length from 0 to " + network.length * 8
                            + " after '/': '" + text + "'");
                }
            }
            return new Range(network, bits, value);
        }

        boolean contains(InetAddress address) {
            byte[] candidate = address.getAddress();
            if (candidate.length != network.length) {
                return false;
            }
            for (int bit = 0; bit < bits; bit += 8) {
                int mask = bits - bit >= 8 ? 0xFF : (0xFF << (8 - (bits - bit))) & 0xFF;
                if (((candidate[bit / 8] ^ network[bit / 8]) & mask) != 0) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
