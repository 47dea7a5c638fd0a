/**
 * A Java Bayeux client: {@link io.weft.client.BayeuxClient} over websocket and long-polling, on Jetty's HTTP and
 * WebSocket clients, with the messages, channel ids and promises of {@code io.weft.bayeux}.
 */
module io.weft.client {
    requires transitive io.weft.bayeux;
    requires transitive org.eclipse.jetty.client;
    requires transitive org.eclipse.jetty.websocket.client;
    requires org.slf4j;

    exports io.weft.client;
}
