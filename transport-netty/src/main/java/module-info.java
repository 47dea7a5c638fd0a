/**
 * Weft on Netty: all four connection types on one port and path, each connection's reads, Bayeux work and writes on
 * its event loop. {@code io.weft.transport.netty.WeftNetty} starts one; {@code Fallback} serves what is not Bayeux.
 */
module io.weft.transport.netty {
    requires transitive io.weft.server;
    requires io.weft.transport.common;
    requires transitive io.netty.buffer;
    requires transitive io.netty.codec.http;
    requires transitive io.netty.common;
    requires transitive io.netty.handler;
    requires transitive io.netty.transport;
    requires io.netty.codec;
    requires io.netty.codec.compression;
    requires io.netty.transport.classes.epoll;
    requires org.slf4j;

    exports io.weft.transport.netty;
}
