package io.weft.examples.spring;

import io.weft.spring.boot.testing.CometdClients.Transport;

/** {@link EndToEndSuite} over websocket, through Tomcat's Jakarta WebSocket container. */
class WebSocketEndToEndTest extends EndToEndSuite {
    @Override
    Transport transport() {
        return Transport.WEBSOCKET;
    }
}
