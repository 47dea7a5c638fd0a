/**
 * Weft's {@code websocket} transport on the Jakarta WebSocket API. Only {@code io.weft.transport.websocket} exists,
 * and only its public types are API: {@code WebSocketServletMount} (any Servlet 6 container), {@code WebSocketTransport}
 * and {@code WebSocketHandler} (embedded Jetty), {@code WeftJetty} (all three connection types on embedded Jetty in one
 * call), and the endpoint class the Jakarta API requires to be public. Jetty (its core WebSocket API) is needed only by
 * {@code WebSocketHandler} and {@code WeftJetty}, and transport-longpoll only by {@code WeftJetty}, so both are optional
 * here; the container provides the Jakarta APIs.
 */
module io.weft.transport.websocket {
    requires transitive io.weft.server;
    requires transitive io.weft.transport.common;
    requires transitive jakarta.websocket;
    requires transitive jakarta.websocket.client;
    requires transitive jakarta.servlet;
    requires org.slf4j;
    requires static transitive org.eclipse.jetty.server;
    requires static org.eclipse.jetty.websocket.core.common;
    requires static io.weft.transport.longpoll;
    requires static transitive org.eclipse.jetty.websocket.core.server;

    exports io.weft.transport.websocket;
}
