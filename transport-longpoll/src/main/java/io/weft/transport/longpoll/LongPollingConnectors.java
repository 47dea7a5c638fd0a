package io.weft.transport.longpoll;

import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.ForwardedRequestCustomizer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;

/**
 * Jetty connector settings for servers whose HTTP/1.1 connections mostly wait in parked long-polls, measured in
 * {@code docs/benchmarks/longpoll-idle-memory.md}: with Jetty's defaults a parked session costs about 110 KB of heap
 * and 8 KB of direct memory; with these, about 7 KB and 4 KB.
 *
 * <ul>
 *   <li>{@link HttpConfiguration#setHeaderCacheSize(int) headerCacheSize} 0: no per-connection header field cache.
 *       Jetty's default (1024) builds a ~100 KB lookup table on every reused HTTP/1.1 connection, to save parsing
 *       repeated header values; an idle long-poll connection pays for it the whole time it waits.</li>
 *   <li>{@link HttpConfiguration#setInputBufferSize(int) inputBufferSize} 4096 (Jetty's default is 8192): the
 *       request buffer a parked HTTP/1.1 request keeps until it is answered. Headers larger than it still pass
 *       (the limit is {@code requestHeaderSize}).</li>
 * </ul>
 *
 * Called by whoever builds the server's connectors, once, before the server starts.
 *
 * <p>Behind a reverse proxy, {@link #trustProxies(Server, String...)} makes the server take the scheme, host and
 * client address from the headers the proxy forwards, for requests that come from the proxy only.
 */
public final class LongPollingConnectors {
    static final int HEADER_CACHE_SIZE = 0;
    static final int INPUT_BUFFER_SIZE = 4096;

    private LongPollingConnectors() {
    }

    /**
     * A new {@link HttpConfiguration} with Jetty's defaults and the two settings above, for the connection factories
     * of a connector being built. Each call makes another: changing one changes no connector that does not use it
     * (trust a proxy with {@link #trustProxies(Server, String...)}, which changes the server's own).
     */
    public static HttpConfiguration httpConfiguration() {
        return tune(new HttpConfiguration());
    }

    /** Applies the two settings above to {@code configuration}, and returns it. */
    public static HttpConfiguration tune(HttpConfiguration configuration) {
        configuration.setHeaderCacheSize(HEADER_CACHE_SIZE);
        configuration.setInputBufferSize(INPUT_BUFFER_SIZE);
        return configuration;
    }

    /**
     * Trusts the forwarded headers ({@code Forwarded}, {@code X-Forwarded-Proto}, {@code -Host}, {@code -Port},
     * {@code -For}) of the requests that come from {@code proxies}, on every connector {@code server} has: for those
     * requests, the origin check, the browser cookie's {@code Secure} flag and the per-address bounds use the scheme,
     * host and client address the proxy forwarded. Anyone else's forwarded headers are ignored, as without this call.
     * Where the proxy appends to {@code X-Forwarded-For}, the client is the rightmost address there that is not a
     * trusted proxy, so a client cannot pick the address it is counted under.
     *
     * <p>Call it once the connectors are added (before or after the server starts); a second call replaces the
     * proxies of the first. It changes the {@link HttpConfiguration}s the connectors use, so it cannot miss them, and
     * fails rather than do nothing.
     *
     * @param proxies the proxies' IP addresses ({@code 10.0.0.5}, {@code ::1}) or CIDR ranges ({@code 10.0.0.0/8}),
     *     never host names
     * @throws IllegalArgumentException if {@code proxies} is empty or names something else than an address or range
     * @throws IllegalStateException if {@code server} has no HTTP connector yet, or one of its connectors already
     *     trusts every peer's forwarded headers (Jetty's own {@link ForwardedRequestCustomizer}, which would make
     *     this call meaningless)
     */
    public static void trustProxies(Server server, String... proxies) {
        trustProxies(server, List.of(proxies));
    }

    /** {@link #trustProxies(Server, String...)} with the proxies in a collection. */
    public static void trustProxies(Server server, Collection<String> proxies) {
        TrustedProxyCustomizer trusted = TrustedProxyCustomizer.of(proxies);
        Set<HttpConfiguration> configurations = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Connector connector : server.getConnectors()) {
            for (ConnectionFactory factory : connector.getConnectionFactories()) {
                if (factory instanceof HttpConfiguration.ConnectionFactory http) {
                    configurations.add(http.getHttpConfiguration());
                }
            }
        }
        if (configurations.isEmpty()) {
            throw new IllegalStateException("the server has no HTTP connector to trust " + trusted + " on: add its "
                    + "connectors first");
        }
        for (HttpConfiguration configuration : configurations) {
            if (configuration.getCustomizers().stream().anyMatch(ForwardedRequestCustomizer.class::isInstance)) {
                throw new IllegalStateException("a connector already trusts every peer's forwarded headers "
                        + "(ForwardedRequestCustomizer): remove it to trust " + trusted + " only");
            }
        }
        for (HttpConfiguration configuration : configurations) {
            // Jetty's list is copy-on-write: a running server's requests see the old proxies or the new, never none.
            List<HttpConfiguration.Customizer> customizers = configuration.getCustomizers();
            int previous = -1;
            for (int i = 0; i < customizers.size() && previous < 0; i++) {
                previous = customizers.get(i) instanceof TrustedProxyCustomizer ? i : -1;
            }
            if (previous >= 0) {
                customizers.set(previous, trusted);
            } else {
                customizers.add(0, trusted); // first: the customizers after it see the forwarded request
            }
        }
    }
}
