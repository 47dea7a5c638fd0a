package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Inbox;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.websocket.api.ExtensionConfig;
import org.eclipse.jetty.websocket.core.CoreSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** How each socket is set up: compression, idle timeout, and what the upgrade handler lets through. */
@Timeout(30)
class SocketSettingsTest {
    @RegisterExtension
    static final Clients clients = new Clients();

    private static List<String> negotiated(RawSocket socket) {
        return socket.session().getUpgradeResponse().getExtensions().stream().map(ExtensionConfig::getName).toList();
    }

    @Test
    void permessageDeflateIsNegotiatedWhenTheClientOffersIt() throws Exception {
        try (EmbeddedServer server = EmbeddedServer.start();
                ScriptedClient client = new ScriptedClient(
                        RawSocket.connect(clients.webSocket(), server.wsUri(), null, "permessage-deflate"))) {
            assertEquals(List.of("permessage-deflate"), negotiated((RawSocket) client.wire()));
            client.handshake();
            client.subscribe("/z");
            String data = "compressible ".repeat(1000);
            client.publish("/z", data);
            client.awaitDelivery("/z", data);
        }
    }

    @Test
    void permessageDeflateIsRefusedWhenSwitchedOff() throws Exception {
        ServerOptions options = ServerOptions.builder().webSocketDeflate(false).build();
        try (EmbeddedServer server = EmbeddedServer.start(options);
                ScriptedClient client = new ScriptedClient(
                        RawSocket.connect(clients.webSocket(), server.wsUri(), null, "permessage-deflate"))) {
            assertEquals(List.of(), negotiated((RawSocket) client.wire()));
            assertEquals(true, client.handshake().get("successful"));
        }
    }

    @Test
    void socketIdleTimeoutStaysAboveTheConnectTimeout() throws Exception {
        ServerOptions options = ServerOptions.builder().timeout(1000).interval(0).maxInterval(1500).build();
        try (EmbeddedServer server = EmbeddedServer.start(options);
                ScriptedClient client = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()))) {
            client.handshake();
            client.connect();
            CoreSession serverSide = server.accepted().get(0).session();
            assertEquals(Duration.ofMillis(2500), serverSide.getIdleTimeout());
            assertTrue(serverSide.getIdleTimeout().toMillis() > options.timeout());

            // Two held connects in a row end with their replies, on a socket still open.
            for (int held = 0; held < 2; held++) {
                Map<String, Object> reply = client.inbox().take(Inbox.channel("/meta/connect"), 5, "held connect");
                assertEquals(true, reply.get("successful"), reply.toString());
            }
            assertTrue(((RawSocket) client.wire()).isOpen());
        }
    }

    @Test
    void requestsThatAreNotUpgradesReachLongPollingOnTheSamePath() throws Exception {
        try (EmbeddedServer server = EmbeddedServer.start()) {
            ContentResponse response = clients.http().POST(server.httpUri())
                    .body(new StringRequestContent("application/json", "[{\"channel\":\"/meta/handshake\","
                            + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]"))
                    .send();
            assertEquals(200, response.getStatus());
            Map<String, Object> reply = Json.array(response.getContentAsString()).get(0);
            assertEquals(true, reply.get("successful"), reply.toString());
            assertTrue(((List<?>) reply.get("supportedConnectionTypes")).containsAll(List.of("websocket", "long-polling")),
                    reply.toString());
        }
    }
}
