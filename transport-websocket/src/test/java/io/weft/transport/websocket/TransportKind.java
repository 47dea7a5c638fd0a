package io.weft.transport.websocket;

import io.weft.server.testing.Wire;
import io.weft.transport.longpoll.testing.EventSourceWire;
import io.weft.transport.longpoll.testing.HttpWire;
/** The transports the shared behaviour suite runs over. */
enum TransportKind {
    WEBSOCKET("websocket") {
        @Override
        Wire open(BayeuxHost server, Clients clients, String cookie) throws Exception {
            return RawSocket.connect(clients.webSocket(), server.wsUri(), cookie);
        }
    },
    LONG_POLLING("long-polling") {
        @Override
        Wire open(BayeuxHost server, Clients clients, String cookie) {
            return new HttpWire(clients.http(), server.httpUri(), cookie, false);
        }
    },
    CALLBACK_POLLING("callback-polling") {
        @Override
        Wire open(BayeuxHost server, Clients clients, String cookie) {
            return new HttpWire(clients.http(), server.httpUri(), cookie, true);
        }
    },
    /** Served where the mount streams responses: embedded Jetty's handler, not the Servlet mount. */
    EVENTSOURCE("eventsource") {
        @Override
        Wire open(BayeuxHost server, Clients clients, String cookie) {
            return new EventSourceWire(clients.http(), server.httpUri(), cookie);
        }
    };

    private final String connectionType;

    TransportKind(String connectionType) {
        this.connectionType = connectionType;
    }

    String connectionType() {
        return connectionType;
    }

    /** A new wire to {@code server}, from a browser with this {@code Cookie} header (null: a client without cookies). */
    abstract Wire open(BayeuxHost server, Clients clients, String cookie) throws Exception;
}
