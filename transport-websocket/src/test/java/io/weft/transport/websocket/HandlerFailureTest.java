package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.weft.server.api.Extension;
import io.weft.server.api.Message;
import io.weft.server.api.ServerSession;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What escapes the engine while a frame is handled (a bug: here an {@code Error} thrown by an extension) closes that
 * socket with 1011 and a fixed reason, never with the failure's details; other sockets carry on.
 */
@Timeout(30)
class HandlerFailureTest {
    private static final String SECRET = "at com.example.internal.Billing.charge(Billing.java:42)";
    @RegisterExtension
    static final Clients clients = new Clients();

    @Test
    void errorEscapingTheEngineClosesTheSocketWith1011WithoutDetails() throws Exception {
        try (EmbeddedServer server = EmbeddedServer.start();
                ScriptedClient victim = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()));
                ScriptedClient bystander = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()))) {
            server.bayeux().addExtension(new Extension() {
                @Override
                public boolean outgoing(ServerSession from, ServerSession to, Message.Mutable message) {
                    if ("/boom".equals(message.getChannel())) {
                        throw new StackOverflowError(SECRET);
                    }
                    return true;
                }
            });
            victim.handshake();
            bystander.handshake();
            bystander.subscribe("/chat");

            victim.wire().send("[{\"channel\":\"/boom\",\"clientId\":\"" + victim.clientId() + "\",\"data\":1}]");

            RawSocket.Closed closed = ((RawSocket) victim.wire()).awaitClose(5);
            assertEquals(StatusCode.SERVER_ERROR, closed.code(), closed.toString());
            assertEquals("server error", closed.reason());
            assertFalse(closed.toString().contains("Billing") || closed.toString().contains("StackOverflow"));
            assertEquals(true, bystander.publish("/chat", "still here").get("successful"));
            bystander.awaitDelivery("/chat", "still here");
        }
    }
}
