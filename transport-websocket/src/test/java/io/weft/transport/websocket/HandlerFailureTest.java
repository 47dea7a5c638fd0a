package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.weft.server.api.Service;
import io.weft.server.testing.ScriptedClient;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What fails in the transport's own write (here an {@code Error} thrown while encoding a service's answer: the engine
 * contains what application code throws while it handles a message, but the encoding happens as the frame is
 * written) closes that socket with 1011 and a fixed reason, never with the failure's details; other sockets carry on.
 */
@Timeout(30)
class HandlerFailureTest {
    private static final String SECRET = "at com.example.internal.Billing.charge(Billing.java:42)";
    @RegisterExtension
    static final Clients clients = new Clients();

    /** An answer whose encoding throws an Error: the failure escapes the engine into the transport's write. */
    public static final class Unwritable {
        public String getBalance() {
            throw new AssertionError(SECRET);
        }
    }

    @Test
    void aFrameTheServerCannotWriteClosesTheSocketWith1011WithoutDetails() throws Exception {
        try (EmbeddedServer server = EmbeddedServer.start();
                ScriptedClient victim = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()));
                ScriptedClient bystander = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()))) {
            server.bayeux().addService("/service/balance", Service.of((from, request) -> new Unwritable()));
            victim.handshake();
            bystander.handshake();
            bystander.subscribe("/chat");

            victim.wire().send("[{\"channel\":\"/service/balance\",\"clientId\":\"" + victim.clientId()
                    + "\",\"data\":1}]");

            RawSocket.Closed closed = ((RawSocket) victim.wire()).awaitClose(5);
            assertEquals(StatusCode.SERVER_ERROR, closed.code(), closed.toString());
            assertEquals("server error", closed.reason());
            assertFalse(closed.toString().contains("Billing") || closed.toString().contains("AssertionError"));
            assertEquals(true, bystander.publish("/chat", "still here").get("successful"));
            bystander.awaitDelivery("/chat", "still here");
        }
    }
}
