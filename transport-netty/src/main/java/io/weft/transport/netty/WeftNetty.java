package io.weft.transport.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.weft.server.api.BayeuxServer;
import io.weft.transport.common.TrustedProxies;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Weft on Netty: one {@link BayeuxServer} on a port, with {@code websocket}, {@code long-polling},
 * {@code callback-polling} and {@code eventsource} on one path, over HTTP/1.1 (TLS optional), on native epoll where it
 * loads and NIO otherwise. Requests for other paths go to a {@link Fallback}, so an application serves its own pages
 * and endpoints on the same port.
 *
 * <pre>
 * connection        guard (connections per address) → head clock (a whole request head in time) → HTTP codec
 *   → router: path below the mount?   websocket upgrade → Bayeux socket (frames ⇄ BayeuxSocket)
 *                                     other requests    → exchange (HttpExchange ⇄ PollingTransport)
 *             elsewhere                                 → the fallback
 * </pre>
 *
 * <p>Everything of a connection runs on its event loop: reading, the engine's handling of what it read (extensions,
 * listeners, services and authorizers included: none of them may block), and writing. A message published on one
 * loop for a session whose connection is on another is written by that connection's loop.
 *
 * <pre>{@code
 * WeftNetty netty = WeftNetty.on(bayeux).port(8080).path("/cometd").start();
 * ...
 * netty.close();
 * }</pre>
 */
public final class WeftNetty implements AutoCloseable {
    private final EventLoopGroup group;
    private final Channel channel;
    private final boolean nativeTransport;
    private final Mount mount;

    private WeftNetty(EventLoopGroup group, Channel channel, boolean nativeTransport, Mount mount) {
        this.group = group;
        this.channel = channel;
        this.nativeTransport = nativeTransport;
        this.mount = mount;
    }

    /** Starts describing a server for {@code bayeux}. */
    public static Builder on(BayeuxServer bayeux) {
        return new Builder(Objects.requireNonNull(bayeux, "bayeux"));
    }

    /** The port it listens on (the one the system chose, for port 0). */
    public int port() {
        return address().getPort();
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** How many websocket connections are open. */
    public int openSockets() {
        return mount.webSockets.openSockets();
    }

    /** Whether it runs on native epoll rather than NIO. */
    public boolean isNative() {
        return nativeTransport;
    }

    /**
     * Stops accepting, closes every connection and stops the event loops, waiting at most a few seconds. The
     * {@link BayeuxServer} is the application's to close, before this (its clients are then told to handshake
     * elsewhere) or after.
     */
    @Override
    public void close() {
        channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }

    @Override
    public String toString() {
        return "WeftNetty[" + channel.localAddress() + (nativeTransport ? ", epoll" : ", nio") + "]";
    }

    /** How to serve: every setting has a default; {@link #start()} binds. */
    public static final class Builder {
        private final BayeuxServer bayeux;
        private String host;
        private int port = 8080;
        private String path = "/cometd";
        private int threads = Runtime.getRuntime().availableProcessors();
        private SslContext tls;
        private Fallback fallback = Fallback.NOT_FOUND;
        private boolean nativeTransport = true;
        private int backlog = 1024;
        private TrustedProxies proxies;

        private Builder(BayeuxServer bayeux) {
            this.bayeux = bayeux;
        }

        /** The address to listen on (default: every interface). */
        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /** The port (default 8080; 0 for one the system chooses). */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0 to 65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /** Where Bayeux is served (default {@code /cometd}): {@code /} or a path without a trailing slash. */
        public Builder path(String path) {
            Objects.requireNonNull(path, "path");
            if (!path.equals("/") && (!path.startsWith("/") || path.endsWith("/") || path.indexOf('*') >= 0)) {
                throw new IllegalArgumentException("path must be / or start with / and end without one, as /cometd: "
                        + path);
            }
            this.path = path;
            return this;
        }

        /** How many event loop threads (default: one per processor). */
        public Builder threads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("threads must be at least 1, was " + threads);
            }
            this.threads = threads;
            return this;
        }

        /** Serves HTTPS and WSS with this server context (default: plain HTTP). */
        public Builder tls(SslContext serverContext) {
            if (serverContext != null && serverContext.isClient()) {
                throw new IllegalArgumentException("tls needs a server context");
            }
            this.tls = serverContext;
            return this;
        }

        /** Serves requests for other paths (default: 404). */
        public Builder fallback(Fallback fallback) {
            this.fallback = Objects.requireNonNull(fallback, "fallback");
            return this;
        }

        /** How many connections may wait to be accepted (default 1024; the system may cap it). */
        public Builder backlog(int connections) {
            if (connections < 1) {
                throw new IllegalArgumentException("backlog must be at least 1, was " + connections);
            }
            this.backlog = connections;
            return this;
        }

        /**
         * Trusts the forwarded headers of the connections that come from these reverse proxies (default: none; the
         * client is the TCP peer, and forwarded headers are ignored from all). For their requests, the scheme, host
         * and client address are what the proxy forwarded ({@code Forwarded}, else {@code X-Forwarded-Proto},
         * {@code -Host}, {@code -Port}, {@code -For}): the origin check, the browser cookie's {@code Secure} flag, what
         * a session's {@code ClientRequest} says and the per-address session bounds use them, on every connection type
         * (a websocket upgrade too). A trusted proxy's connections are not counted per address
         * ({@code maxConnectionsPerAddress}): bound them at the proxy. Anyone else's forwarded headers change nothing.
         *
         * <p>Where the proxy appends to {@code X-Forwarded-For} (nginx's {@code $proxy_add_x_forwarded_for}), the
         * client is the rightmost address there that is not a trusted proxy, so a client cannot pick the address it
         * is counted under. A forwarded value that is not what it should be (garbage, {@code unknown}, an obfuscated
         * identifier) counts as not forwarded: the request keeps what its connection says. A second call replaces the
         * proxies of the first.
         *
         * @param addressesOrCidrs the proxies' IP addresses ({@code 10.0.0.5}, {@code ::1}) or CIDR ranges
         *     ({@code 10.0.0.0/8}), never host names (nothing is looked up)
         * @throws IllegalArgumentException if the list is empty or names something else than an address or range
         */
        public Builder trustProxies(List<String> addressesOrCidrs) {
            this.proxies = TrustedProxies.of(Objects.requireNonNull(addressesOrCidrs, "addressesOrCidrs"));
            return this;
        }

        /** Whether to use native epoll where it loads (default true); NIO otherwise. */
        public Builder nativeTransport(boolean use) {
            this.nativeTransport = use;
            return this;
        }

        /** Binds and starts serving; the server's handshake replies offer the four connection types from now on. */
        public WeftNetty start() throws InterruptedException {
            boolean epoll = nativeTransport && Epoll.isAvailable();
            IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
            Class<? extends ServerChannel> type = epoll ? EpollServerSocketChannel.class
                    : NioServerSocketChannel.class;
            EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("weft-netty"), io);
            try {
                Mount mount = new Mount(bayeux, path, tls, fallback, proxies);
                Channel channel = new ServerBootstrap()
                        .group(group)
                        .channel(type)
                        .option(ChannelOption.SO_BACKLOG, backlog)
                        .childOption(ChannelOption.TCP_NODELAY, true)
                        .childHandler(new ConnectionSetup(mount))
                        .bind(host == null ? new InetSocketAddress(port) : new InetSocketAddress(host, port))
                        .sync()
                        .channel();
                return new WeftNetty(group, channel, epoll, mount);
            } catch (Throwable x) {
                // A bind failure is rethrown by sync() as it is (a BindException, say): the loops go with it.
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
                throw x;
            }
        }
    }
}
