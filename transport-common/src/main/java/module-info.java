/**
 * The container-free half of Weft's transports, shared by every adapter: {@code PollingTransport} serves
 * {@code long-polling}, {@code callback-polling} and {@code eventsource} over an {@code HttpExchange}, and
 * {@code BayeuxSocket} serves {@code websocket} over a {@code BayeuxSocket.Wire}. An adapter (transport-longpoll's
 * Jetty handler and Servlet, transport-websocket's Jetty and Jakarta endpoints, transport-netty's handlers) only
 * translates its container's events into these and moves bytes. Its public types are for those adapters, not for
 * applications.
 */
module io.weft.transport.common {
    requires transitive io.weft.server;
    requires org.slf4j;

    exports io.weft.transport.common;
}
