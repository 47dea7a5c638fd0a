package io.weft.transport.netty;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.extensions.compression.WebSocketServerCompressionHandler;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * The pipeline of a new connection, each handler small and named:
 *
 * <pre>
 * tls?  → guard  → head  → http            → deflate?     → idle  → router
 * TLS     counts   times   HTTP/1.1 codec    ws deflate     idle    Bayeux or
 *         per      a head  (line, headers    negotiation    close   the fallback
 *         address  whole   and body bounded)
 * </pre>
 *
 * A websocket upgrade replaces {@code head}, {@code http} and {@code router} with the websocket codec and the socket,
 * which flushes its frames once per turn of its event loop (an HTTP answer is one write and one flush).
 */
final class ConnectionSetup extends ChannelInitializer<SocketChannel> {
    static final String TLS = "tls";
    static final String GUARD = "guard";
    static final String HEAD = "head";
    static final String HTTP = "http";
    static final String DEFLATE = "deflate";
    static final String IDLE = "idle";
    static final String ROUTER = "router";
    static final String SOCKET = "socket";
    /** Netty's defaults for the request line and the headers, and a chunk size that suits Bayeux bodies. */
    static final int MAX_INITIAL_LINE = 4096;
    static final int MAX_HEADERS = 8192;
    static final int MAX_CHUNK = 8192;

    private final Mount mount;
    private final AddressGuard.Counts counts;

    ConnectionSetup(Mount mount) {
        this.mount = mount;
        this.counts = new AddressGuard.Counts(mount.engine, mount.proxies);
    }

    /**
     * A request's trailers: Netty's, validated as Netty validates them, in a table of 2 slots rather than 16. The
     * decoder makes one for every request whose body has a length, which can carry none, and for a chunked body that
     * ends with some (rare, and few).
     */
    private static final HttpHeadersFactory TRAILERS = new HttpHeadersFactory() {
        @Override
        public HttpHeaders newHeaders() {
            return DefaultHttpHeadersFactory.trailersFactory().newEmptyHeaders();
        }

        @Override
        public HttpHeaders newEmptyHeaders() {
            return DefaultHttpHeadersFactory.trailersFactory().newEmptyHeaders();
        }
    };

    /** The HTTP/1.1 codec of a connection: Netty's checks of requests, all of them on. */
    static HttpServerCodec codec() {
        return new HttpServerCodec(new HttpDecoderConfig()
                .setMaxInitialLineLength(MAX_INITIAL_LINE)
                .setMaxHeaderSize(MAX_HEADERS)
                .setMaxChunkSize(MAX_CHUNK)
                .setTrailersFactory(TRAILERS));
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        ChannelPipeline pipeline = channel.pipeline();
        if (mount.tls != null) {
            pipeline.addLast(TLS, mount.tls.newHandler(channel.alloc()));
        }
        pipeline.addLast(GUARD, new AddressGuard(counts));
        pipeline.addLast(HEAD, new HeadClock(mount.engine));
        pipeline.addLast(HTTP, codec());
        if (mount.options.webSocketDeflate()) {
            // A compressed message inflates to at most maxMessageSize: no deflate bomb.
            pipeline.addLast(DEFLATE, new WebSocketServerCompressionHandler(mount.options.maxMessageSize()));
        }
        pipeline.addLast(IDLE, new IdleStateHandler(0, 0, Mount.IDLE_MILLIS, TimeUnit.MILLISECONDS));
        pipeline.addLast(ROUTER, new HttpRouter(mount));
    }
}
