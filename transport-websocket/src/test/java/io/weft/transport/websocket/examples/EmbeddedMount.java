package io.weft.transport.websocket.examples;

import io.weft.server.api.BayeuxServer;
import io.weft.transport.websocket.WebSocketHandler;
import io.weft.transport.websocket.WebSocketTransport;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;

/** The embedded mount as the module README shows it (the README quotes the marked lines; a test checks they match). */
public final class EmbeddedMount {
    private EmbeddedMount() {
    }

    /** Mounts websocket and, behind it on the same path, whatever serves long-polling. */
    public static void mount(Server server, BayeuxServer bayeux, Handler longPolling) {
        // snippet:embedded
        WebSocketHandler webSocket = WebSocketTransport.install(bayeux, server, "/cometd/*");
        webSocket.setHandler(longPolling); // requests that are not upgrades go on to long-polling
        server.setHandler(webSocket);
        // end:embedded
    }
}
