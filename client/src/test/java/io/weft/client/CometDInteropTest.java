package io.weft.client;

import static io.weft.client.TestClients.await;
import static io.weft.client.TestClients.awaitTrue;
import static io.weft.client.TestClients.into;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.cometd.bayeux.server.BayeuxServer;
import org.cometd.server.ext.AcknowledgedMessagesExtension;
import org.cometd.server.http.jakarta.CometDServlet;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client against another Bayeux server: the official CometD 9 server (its Servlet, long-polling; CometD's
 * websocket server artifacts do not resolve here, so a websocket-first client must fall back).
 */
@Timeout(60)
class CometDInteropTest {
    private static TestClients clients;
    private final List<BayeuxClient> started = new ArrayList<>();
    private Server jetty;
    private BayeuxServer cometd;
    private String url;

    @BeforeAll
    static void startClients() throws Exception {
        clients = new TestClients();
    }

    @AfterAll
    static void stopClients() throws Exception {
        clients.close();
    }

    private void startCometD(Map<String, String> parameters) throws Exception {
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        ServletHolder holder = new ServletHolder(CometDServlet.class);
        holder.setAsyncSupported(true);
        holder.setInitOrder(1);
        parameters.forEach(holder::setInitParameter);
        context.addServlet(holder, "/cometd/*");
        jetty.setHandler(context);
        jetty.start();
        cometd = (BayeuxServer) context.getServletContext().getAttribute(BayeuxServer.ATTRIBUTE);
        url = "http://127.0.0.1:" + connector.getLocalPort() + "/cometd";
    }

    @AfterEach
    void stop() throws Exception {
        for (BayeuxClient client : started) {
            CompletableFuture<Message> done = new CompletableFuture<>();
            client.disconnect(into(done));
            done.get(10, TimeUnit.SECONDS);
        }
        if (jetty != null) {
            jetty.stop();
        }
    }

    private BayeuxClient client(BayeuxClientBuilder builder) {
        BayeuxClient client = builder.build();
        started.add(client);
        return client;
    }

    private static Message handshake(BayeuxClient client) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        client.handshake(into(reply));
        return await(reply);
    }

    @Test
    void publishSubscribeAndDisconnectWorkAgainstCometD() throws Exception {
        startCometD(Map.of());
        BayeuxClient alice = client(clients.builder(url, TestClients.Kind.LONG_POLLING));
        BayeuxClient bob = client(clients.builder(url, TestClients.Kind.LONG_POLLING));
        assertTrue(handshake(alice).isSuccessful());
        handshake(bob);
        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        CompletableFuture<Message> subscribed = new CompletableFuture<>();
        alice.subscribe("/chat/*", received::add, into(subscribed));
        assertTrue(await(subscribed).isSuccessful());

        CompletableFuture<Message> published = new CompletableFuture<>();
        bob.publish("/chat/lobby", Map.of("text", "hi from weft"), into(published));

        assertTrue(await(published).isSuccessful());
        Message delivery = received.poll(10, TimeUnit.SECONDS);
        assertEquals("/chat/lobby", delivery.getChannel());
        assertEquals("hi from weft", delivery.getDataAsMap().get("text"));
        awaitTrue("connected", () -> alice.getState() == BayeuxClient.State.CONNECTED);
        String id = alice.getId();
        CompletableFuture<Message> disconnected = new CompletableFuture<>();
        alice.disconnect(into(disconnected));
        assertTrue(await(disconnected).isSuccessful());
        awaitTrue("CometD forgets the session", () -> cometd.getSession(id) == null);
    }

    @Test
    void websocketFirstClientFallsBackToCometDsLongPolling() throws Exception {
        startCometD(Map.of());
        BayeuxClient client = client(BayeuxClient.builder(url).webSocket(clients.webSocket())
                .longPolling(clients.http()));

        assertTrue(handshake(client).isSuccessful());

        assertEquals("long-polling", client.getTransportName());
        awaitTrue("connected", () -> client.getState() == BayeuxClient.State.CONNECTED);
    }

    @Test
    void expiredCometDSessionIsHandshakenAgainAndResubscribed() throws Exception {
        startCometD(Map.of("timeout", "500", "maxInterval", "500", "sweepPeriod", "100"));
        List<Message> handshakes = new CopyOnWriteArrayList<>();
        Gate gate = new Gate();
        BayeuxClient alice = client(clients.builder(url, TestClients.Kind.LONG_POLLING).extension(gate));
        BayeuxClient bob = client(clients.builder(url, TestClients.Kind.LONG_POLLING));
        alice.addListener("/meta/handshake", handshakes::add);
        handshake(alice);
        handshake(bob);
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        CompletableFuture<Message> subscribed = new CompletableFuture<>();
        alice.subscribe("/chat/resume", m -> received.add(m.getData()), into(subscribed));
        await(subscribed);
        String first = alice.getId();

        gate.closed = true;
        awaitTrue("CometD expires the session", () -> cometd.getSession(first) == null);
        gate.closed = false;

        awaitTrue("handshaken again", () -> handshakes.size() == 2 && alice.getId() != null);
        assertNotEquals(first, alice.getId());
        String second = alice.getId();
        awaitTrue("resubscribed", () -> cometd.getSession(second) != null
                && !cometd.getSession(second).getSubscriptions().isEmpty());
        CompletableFuture<Message> published = new CompletableFuture<>();
        bob.publish("/chat/resume", "again", into(published));
        await(published);
        assertEquals("again", received.poll(10, TimeUnit.SECONDS));
    }

    @Test
    void ackExtensionWorksWithCometDsAcknowledgedMessages() throws Exception {
        startCometD(Map.of());
        cometd.addExtension(new AcknowledgedMessagesExtension());
        BayeuxClient alice = client(clients.builder(url, TestClients.Kind.LONG_POLLING).ackExtension(true));
        BayeuxClient bob = client(clients.builder(url, TestClients.Kind.LONG_POLLING));

        Message reply = handshake(alice);

        assertEquals(true, reply.getExt().get("ack"), reply.toJson());
        handshake(bob);
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        CompletableFuture<Message> subscribed = new CompletableFuture<>();
        alice.subscribe("/acked", m -> received.add(m.getData()), into(subscribed));
        await(subscribed);
        for (int i = 0; i < 5; i++) {
            CompletableFuture<Message> published = new CompletableFuture<>();
            bob.publish("/acked", i, into(published));
            await(published);
        }
        for (int i = 0; i < 5; i++) {
            assertEquals(i, received.poll(10, TimeUnit.SECONDS));
        }
    }

    /** Drops outgoing {@code /meta/connect} messages while closed. */
    private static final class Gate implements ClientExtension {
        volatile boolean closed;

        @Override
        public boolean outgoing(BayeuxClient client, Message.Mutable message) {
            return !(closed && "/meta/connect".equals(message.getChannel()));
        }
    }
}
