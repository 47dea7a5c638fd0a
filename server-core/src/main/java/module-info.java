/**
 * Weft's Bayeux engine, on the message, channel id, promise and codec of {@code io.weft.bayeux}. Applications use
 * {@code io.weft.server.api}; transports implement and call
 * {@code io.weft.server.spi}. The shipped extensions are in
 * {@code io.weft.server.ext}. Everything else is internal and not exported.
 */
module io.weft.server {
    requires transitive io.weft.bayeux;
    requires org.slf4j;

    exports io.weft.server.api;
    exports io.weft.server.ext;
    exports io.weft.server.spi;
}
