package io.weft.transport.longpoll;

import org.eclipse.jetty.server.HttpConfiguration;

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
 */
public final class LongPollingConnectors {
    static final int HEADER_CACHE_SIZE = 0;
    static final int INPUT_BUFFER_SIZE = 4096;

    private LongPollingConnectors() {
    }

    /** A new {@link HttpConfiguration} with Jetty's defaults and the two settings above. */
    public static HttpConfiguration httpConfiguration() {
        return tune(new HttpConfiguration());
    }

    /** Applies the two settings above to {@code configuration}, and returns it. */
    public static HttpConfiguration tune(HttpConfiguration configuration) {
        configuration.setHeaderCacheSize(HEADER_CACHE_SIZE);
        configuration.setInputBufferSize(INPUT_BUFFER_SIZE);
        return configuration;
    }
}
