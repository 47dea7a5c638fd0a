package io.weft.transport.websocket;

import io.weft.server.api.BayeuxServer;
import java.net.URI;

/** A running Weft server the behaviour suite talks to: embedded Jetty, or a web application in Tomcat. */
interface BayeuxHost extends AutoCloseable {
    BayeuxServer bayeux();

    /** The Bayeux URL for WebSocket clients: {@code ws://127.0.0.1:port/.../cometd}. */
    URI wsUri();

    /** The Bayeux URL for HTTP clients. */
    URI httpUri();
}
