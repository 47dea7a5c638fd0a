package io.weft.transport.netty;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.weft.server.api.Limit;
import io.weft.server.spi.Addresses;
import io.weft.server.spi.Engine;
import io.weft.transport.common.TrustedProxies;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts a connection under its peer's address ({@link Addresses#key}: IPv6 by its /64) while it is open, and closes
 * one that opens past {@code maxConnectionsPerAddress} at once, counted as {@link Limit#CONNECTIONS_PER_ADDRESS}. The
 * count is the TCP peer's: a reverse proxy the mount trusts ({@link WeftNetty.Builder#trustProxies}) is not counted,
 * since it carries many clients' connections (bound those at the proxy), as transport-longpoll's
 * {@code ConnectionGuard} does on Jetty.
 */
final class AddressGuard extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(AddressGuard.class);

    private final Counts counts;
    /** What this connection is counted under, while it is; null if not counted. */
    private Object key;

    AddressGuard(Counts counts) {
        this.counts = counts;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        InetAddress address = ctx.channel().remoteAddress() instanceof InetSocketAddress inet ? inet.getAddress() : null;
        if (address != null && !counts.fromTrustedProxy(address)) {
            Object counted = Addresses.key(address);
            if (!counts.take(counted)) {
                LOG.debug("closing a connection from {}: maxConnectionsPerAddress reached", address);
                ctx.close();
                return;
            }
            key = counted;
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (key != null) {
            counts.give(key);
            key = null;
        }
        ctx.fireChannelInactive();
    }

    /** The open connections per address of one server. Thread-safe. */
    static final class Counts {
        private final Engine engine;
        private final int max;
        private final TrustedProxies proxies;
        private final ConcurrentHashMap<Object, Integer> open = new ConcurrentHashMap<>();

        Counts(Engine engine, TrustedProxies proxies) {
            this.engine = engine;
            this.max = engine.options().maxConnectionsPerAddress();
            this.proxies = proxies;
        }

        boolean fromTrustedProxy(InetAddress address) {
            return proxies != null && proxies.trusts(address);
        }

        boolean take(Object key) {
            boolean[] taken = new boolean[1];
            open.compute(key, (k, count) -> {
                int now = count == null ? 0 : count;
                if (now >= max) {
                    return count;
                }
                taken[0] = true;
                return now + 1;
            });
            if (!taken[0]) {
                engine.refused(Limit.CONNECTIONS_PER_ADDRESS);
            }
            return taken[0];
        }

        void give(Object key) {
            open.computeIfPresent(key, (k, count) -> count <= 1 ? null : count - 1);
        }

        int openFrom(InetAddress address) {
            return open.getOrDefault(Addresses.key(address), 0);
        }
    }
}
