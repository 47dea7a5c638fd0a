package io.weft.transport.longpoll;

import io.weft.server.spi.Addresses;
import io.weft.transport.common.TrustedProxies;
import java.net.InetAddress;
import java.util.List;
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
 * <p>Jetty takes the leftmost entry of {@code X-Forwarded-For} and the leftmost element of {@code Forwarded}: behind a
 * proxy that appends (nginx's {@code $proxy_add_x_forwarded_for}), what the client wrote itself. Jetty's customizer is
 * therefore handed the request with one entry left in each, the client's as {@link TrustedProxies} chooses it (the
 * rightmost that is not a trusted proxy), so a client cannot choose the address it is counted under. Immutable and
 * thread-safe.
 */
final class TrustedProxyCustomizer implements HttpConfiguration.Customizer {
    private final TrustedProxies proxies;
    private final ForwardedRequestCustomizer forwarded = new ForwardedRequestCustomizer();

    private TrustedProxyCustomizer(TrustedProxies proxies) {
        this.proxies = proxies;
    }

    /**
     * The proxies at {@code addresses}: IP addresses or CIDR ranges, never host names ({@link TrustedProxies#of}).
     *
     * @throws IllegalArgumentException if there is none, or one is neither
     */
    static TrustedProxyCustomizer of(Iterable<String> addresses) {
        return new TrustedProxyCustomizer(TrustedProxies.of(addresses));
    }

    /** Whether a connection from {@code address} comes from a trusted proxy. */
    boolean trusts(InetAddress address) {
        return proxies.trusts(address);
    }

    @Override
    public Request customize(Request request, HttpFields.Mutable responseHeaders) {
        if (!trusts(Addresses.of(request.getConnectionMetaData().getRemoteSocketAddress()))) {
            return request;
        }
        HttpFields headers = request.getHeaders();
        HttpFields.Mutable narrowed = null;
        List<String> forwardedFor = headers.getValuesList(HttpHeader.X_FORWARDED_FOR);
        String entry = narrowedTo(forwardedFor, proxies.clientEntry(forwardedFor));
        if (entry != null) {
            narrowed = HttpFields.build(headers).put(HttpHeader.X_FORWARDED_FOR, entry);
        }
        List<String> standard = headers.getValuesList(HttpHeader.FORWARDED);
        String element = narrowedTo(standard, proxies.clientElement(standard));
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

    /** {@code chosen}, where the header's {@code lines} say more than that one entry; else null (left as it is). */
    private static String narrowedTo(List<String> lines, String chosen) {
        if (chosen == null || lines.size() == 1 && lines.get(0).trim().equals(chosen)) {
            return null;
        }
        return chosen;
    }

    @Override
    public String toString() {
        return proxies.toString();
    }
}
