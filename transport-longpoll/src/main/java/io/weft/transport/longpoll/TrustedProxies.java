package io.weft.transport.longpoll;

import io.weft.server.spi.Addresses;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.ForwardedRequestCustomizer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;

/**
 * A connector customizer that applies Jetty's {@link ForwardedRequestCustomizer} to the requests whose connection
 * comes from one of the trusted proxies, and to no other: anyone else's {@code Forwarded} and {@code X-Forwarded-*}
 * headers are their own word and change nothing. Made by {@link LongPollingConnectors#trustProxies}.
 *
 * <p>A proxy that appends to {@code X-Forwarded-For} (nginx's {@code $proxy_add_x_forwarded_for}) passes on what the
 * client itself sent, in front of the address it saw. The client is therefore the rightmost address in that list
 * that is not a trusted proxy, not the leftmost that Jetty would take; the same goes for the elements of
 * {@code Forwarded}. Jetty's customizer is handed the request with that one entry left, so a client cannot choose
 * the address it is counted under. Immutable and thread-safe.
 */
final class TrustedProxies implements HttpConfiguration.Customizer {
    private final List<Range> proxies;
    private final ForwardedRequestCustomizer forwarded = new ForwardedRequestCustomizer();

    private TrustedProxies(List<Range> proxies) {
        this.proxies = proxies;
    }

    /**
     * The proxies at {@code addresses}: IP addresses ({@code 10.0.0.5}, {@code ::1}) or ranges in CIDR notation
     * ({@code 10.0.0.0/8}, {@code fd00::/8}), never host names (no lookup happens here).
     *
     * @throws IllegalArgumentException if there is none, or one is neither
     */
    static TrustedProxies of(Iterable<String> addresses) {
        List<Range> ranges = new ArrayList<>();
        for (String address : Objects.requireNonNull(addresses, "addresses")) {
            ranges.add(Range.parse(address));
        }
        if (ranges.isEmpty()) {
            throw new IllegalArgumentException("no trusted proxy named: give the proxy's IP address or range");
        }
        return new TrustedProxies(List.copyOf(ranges));
    }

    /** Whether a connection from {@code address} comes from a trusted proxy. */
    boolean trusts(InetAddress address) {
        if (address == null) {
            return false;
        }
        for (Range range : proxies) {
            if (range.contains(address)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Request customize(Request request, HttpFields.Mutable responseHeaders) {
        if (!trusts(Addresses.of(request.getConnectionMetaData().getRemoteSocketAddress()))) {
            return request;
        }
        HttpFields headers = request.getHeaders();
        HttpFields.Mutable narrowed = null;
        String forwardedFor = clientEntry(headers.getValuesList(HttpHeader.X_FORWARDED_FOR), TrustedProxies::hostOf);
        if (forwardedFor != null) {
            narrowed = HttpFields.build(headers).put(HttpHeader.X_FORWARDED_FOR, forwardedFor);
        }
        String element = clientEntry(headers.getValuesList(HttpHeader.FORWARDED), this::elementFor);
        if (element != null) {
            narrowed = (narrowed == null ? HttpFields.build(headers) : narrowed).put(HttpHeader.FORWARDED, element);
        }
        if (narrowed == null) {
            return forwarded.customize(request, responseHeaders);
        }
        HttpFields view = narrowed.asImmutable();
        return forwarded.customize(new Request.Wrapper(request) {
            @Override
            public HttpFields getHeaders() {
                return view;
            }
        }, responseHeaders);
    }

    /**
     * Of a header's comma-separated entries, the one the client's side of the nearest trusted proxies added: the
     * rightmost whose address is not a trusted proxy (all trusted: the leftmost). Null when the header has at most one
     * entry, and is left as it is.
     */
    private String clientEntry(List<String> lines, Function<String, String> addressOf) {
        List<String> entries = new ArrayList<>();
        for (String line : lines) {
            splitOutsideQuotes(line, entries);
        }
        if (entries.size() < 2) {
            return null;
        }
        for (int i = entries.size() - 1; i >= 0; i--) {
            if (!trusts(Addresses.literal(addressOf.apply(entries.get(i))))) {
                return entries.get(i);
            }
        }
        return entries.get(0);
    }

    /** The address in a {@code Forwarded} element's {@code for=} parameter, or null. */
    private String elementFor(String element) {
        for (String pair : element.split(";")) {
            int equals = pair.indexOf('=');
            if (equals > 0 && pair.substring(0, equals).trim().equalsIgnoreCase("for")) {
                String value = pair.substring(equals + 1).trim();
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                    value = value.substring(1, value.length() - 1);
                }
                return hostOf(value);
            }
        }
        return null;
    }

    /** The address of an entry: {@code 192.0.2.7}, {@code 192.0.2.7:5000}, {@code [2001:db8::1]:80}, {@code ::1}. */
    private static String hostOf(String entry) {
        String value = entry.trim();
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            return close > 0 ? value.substring(1, close) : value;
        }
        int colon = value.indexOf(':');
        // one colon: IPv4 with a port; more: a bare IPv6 address
        return colon > 0 && colon == value.lastIndexOf(':') ? value.substring(0, colon) : value;
    }

    private static void splitOutsideQuotes(String line, List<String> into) {
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                add(line.substring(start, i), into);
                start = i + 1;
            }
        }
        add(line.substring(start), into);
    }

    private static void add(String entry, List<String> into) {
        String trimmed = entry.trim();
        if (!trimmed.isEmpty()) {
            into.add(trimmed);
        }
    }

    @Override
    public String toString() {
        return "TrustedProxies" + proxies;
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
