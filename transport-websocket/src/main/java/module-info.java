/**
 * Weft's {@code websocket} transport on Jetty 12's native WebSocket API. Only {@code io.weft.transport.websocket}
 * exists, and only its public types are API: {@code WebSocketTransport} (embedded), {@code WebSocketServletMount}
 * (WAR), and the endpoint class Jetty requires to be public. The EE11 WebSocket and Servlet modules are needed only
 * by {@code WebSocketServletMount}, so they are optional here.
 */
module io.weft.transport.websocket {
    requires transitive io.weft.server;
    requires transitive org.eclipse.jetty.server;
    requires transitive org.eclipse.jetty.websocket.server;
    requires org.eclipse.jetty.websocket.api;
    requires org.eclipse.jetty.websocket.common;
    requires org.eclipse.jetty.websocket.core.common;
    requires org.eclipse.jetty.websocket.core.server;
    requires org.slf4j;
    requires static transitive jakarta.servlet;
    requires static org.eclipse.jetty.ee11.servlet;
    requires static org.eclipse.jetty.ee11.websocket.jetty.server;
    requires static org.eclipse.jetty.ee11.websocket.servlet;

    exports io.weft.transport.websocket;
}
