/**
 * Weft's HTTP polling transports ({@code long-polling}, {@code callback-polling}): a Jetty 12 core handler and an
 * asynchronous Servlet over one implementation. Only the two adapters are exported.
 */
module io.weft.transport.longpoll {
    requires transitive io.weft.server;
    requires transitive org.eclipse.jetty.server;
    requires static transitive jakarta.servlet;
    requires org.slf4j;

    exports io.weft.transport.longpoll;
}
