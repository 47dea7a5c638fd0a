package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import io.weft.transport.longpoll.PollingServer.Mount;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.cometd.bayeux.Message;
import org.cometd.bayeux.client.ClientSessionChannel;
import org.cometd.client.BayeuxClient;
import org.cometd.client.http.jetty.JettyHttpClientTransport;
import org.eclipse.jetty.client.HttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The official CometD Java client (9.0.0), unchanged, over Weft's long-polling. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CometdJavaClientTest {
    private PollingServer server;
    private HttpClient http;

    @AfterEach
    void stop() throws Exception {
        if (http != null) {
            http.stop();
        }
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void officialClientHandshakesSubscribesPublishesReceivesUnsubscribesAndDisconnects(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        http = new HttpClient();
        http.start();
        BayeuxClient client = new BayeuxClient(server.uri().toString(), new JettyHttpClientTransport(null, http));

        client.handshake();
        assertTrue(client.waitFor(10_000, BayeuxClient.State.CONNECTED), "connected");
        assertEquals("long-polling", server.bayeux().getSession(client.getId()).getConnectionType());
        assertTrue(client.getCookie(Browser.COOKIE) != null, "the client keeps the browser cookie");

        ClientSessionChannel channel = client.getChannel("/chat/demo");
        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        ClientSessionChannel.MessageListener listener = (c, message) -> received.add(message);
        CompletableFuture<Message> subscribed = new CompletableFuture<>();
        channel.subscribe(listener, subscribed::complete);
        assertTrue(subscribed.get(10, TimeUnit.SECONDS).isSuccessful(), "subscribed");

        CompletableFuture<Message> published = new CompletableFuture<>();
        channel.publish(Map.of("text", "hello from CometD"), published::complete);
        assertTrue(published.get(10, TimeUnit.SECONDS).isSuccessful(), "published");
        Message message = received.poll(10, TimeUnit.SECONDS);
        assertEquals("/chat/demo", message.getChannel());
        assertEquals(Map.of("text", "hello from CometD"), message.getDataAsMap());

        CompletableFuture<Message> unsubscribed = new CompletableFuture<>();
        channel.unsubscribe(listener, unsubscribed::complete);
        assertTrue(unsubscribed.get(10, TimeUnit.SECONDS).isSuccessful(), "unsubscribed");
        assertTrue(server.bayeux().getSession(client.getId()).getSubscriptions().isEmpty());

        String clientId = client.getId();
        assertTrue(client.disconnect(10_000), "disconnected");
        assertNull(server.bayeux().getSession(clientId));
    }
}
