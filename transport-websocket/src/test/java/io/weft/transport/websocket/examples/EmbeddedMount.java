package io.weft.transport.websocket.examples;

import io.weft.server.api.BayeuxServer;
import io.weft.transport.websocket.WebSocketHandler;
import io.weft.transport.websocket.WeftJetty;
import org.eclipse.jetty.server.Server;

/** The embedded mount as the module README shows it (the README quotes the marked lines; a test checks they match). */
public final class EmbeddedMount {
    private EmbeddedMount() {
    }

    /** Mounts websocket, long-polling and callback-polling on {@code /cometd}. */
    public static WebSocketHandler mount(Server server, BayeuxServer bayeux) {
        // snippet:embedded
        WebSocketHandler webSocket = WeftJetty.mount(server, bayeux, "/cometd");
        // end:embedded
        return webSocket;
    }
}
