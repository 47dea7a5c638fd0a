/**
 * Weft's HTTP polling transports ({@code long-polling}, {@code callback-polling}): a Jetty 12 core handler and an
 * asynchronous Servlet over one implementation, and the connector settings they recommend. Only this package is
 * exported, and in it only LongPollingHandler, LongPollingServlet and LongPollingConnectors are public.
 */
module io.weft.transport.longpoll {
    requires transitive io.weft.server;
    requires io.weft.transport.common;
    requires transitive org.eclipse.jetty.server;
    requires static transitive jakarta.servlet;
    requires static org.eclipse.jetty.ee11.servlet;
    requires org.slf4j;

    exports io.weft.transport.longpoll;
}
