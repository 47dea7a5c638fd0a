package io.weft.transport.websocket;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.transport.netty.WeftNetty;
import java.net.URI;

/** A Weft server on Netty (transport-netty's {@link WeftNetty}), loopback, port 0, Bayeux on {@code /cometd}. */
final class NettyHost implements BayeuxHost {
    private final BayeuxServer bayeux;
    private final WeftNetty netty;

    private NettyHost(ServerOptions options) throws Exception {
        bayeux = BayeuxServer.create(options);
        try {
            netty = WeftNetty.on(bayeux).host("127.0.0.1").port(0).path(EmbeddedServer.PATH).start();
        } catch (Exception | Error x) {
            bayeux.close();
            throw x;
        }
    }

    static NettyHost start(ServerOptions options) throws Exception {
        return new NettyHost(options);
    }

    @Override
    public BayeuxServer bayeux() {
        return bayeux;
    }

    @Override
    public URI wsUri() {
        return URI.create("ws://127.0.0.1:" + netty.port() + EmbeddedServer.PATH);
    }

    @Override
    public URI httpUri() {
        return URI.create("http://127.0.0.1:" + netty.port() + EmbeddedServer.PATH);
    }

    @Override
    public void close() {
        try {
            netty.close();
        } finally {
            bayeux.close();
        }
    }
}
