package io.weft.client;

import static io.weft.client.TestClients.await;
import static io.weft.client.TestClients.awaitTrue;
import static io.weft.client.TestClients.into;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Message;
import io.weft.server.api.Extension;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.HttpClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The client against a real Weft server, one suite over every transport. */
@Timeout(60)
class ClientBehaviourTest {
    private static TestClients clients;
    private final List<BayeuxClient> started = new ArrayList<>();
    /** HttpClients of a test's own, stopped after its clients are disconnected. */
    private final List<HttpClient> ownHttpClients = new ArrayList<>();
    private TestServer server;

    @BeforeAll
    static void startClients() throws Exception {
        clients = new TestClients();
    }

    @AfterAll
    static void stopClients() throws Exception {
        clients.close();
    }

    @AfterEach
    void stop() throws Exception {
        for (BayeuxClient client : started) {
            CompletableFuture<Message> done = new CompletableFuture<>();
            client.disconnect(into(done));
            done.get(10, TimeUnit.SECONDS);
        }
        for (HttpClient http : ownHttpClients) {
            http.stop();
        }
        if (server != null) {
            server.close();
        }
    }

    private BayeuxClient client(TestClients.Kind kind) {
        return client(clients.builder(server.url(), kind));
    }

    private BayeuxClient client(BayeuxClientBuilder builder) {
        BayeuxClient client = builder.trafficListener(new TrafficListener() {
            @Override
            public void onSend(BayeuxClient c, List<? extends Message> batch) {
                if (Boolean.getBoolean("trace")) System.err.println(System.identityHashCode(c) + " >> " + batch);
            }

            @Override
            public void onReceive(BayeuxClient c, List<? extends Message> batch) {
                if (Boolean.getBoolean("trace")) System.err.println(System.identityHashCode(c) + " << " + batch);
            }
        }).build();
        started.add(client);
        return client;
    }

    private static Message handshake(BayeuxClient client) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        client.handshake(into(reply));
        return await(reply);
    }

    private static Message subscribe(BayeuxClient client, String channel, MessageListener listener) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        client.subscribe(channel, listener, into(reply));
        return await(reply);
    }

    private static Message publish(BayeuxClient client, String channel, Object data) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        client.publish(channel, data, into(reply));
        return await(reply);
    }

    @ParameterizedTest
    @EnumSource(TestClients.Kind.class)
    void handshakeConnectsOverTheChosenTransport(TestClients.Kind kind) throws Exception {
        server = TestServer.start();
        BayeuxClient client = client(kind);

        Message reply = handshake(client);

        assertTrue(reply.isSuccessful(), reply.toJson());
        assertNotNull(client.getId());
        String type = kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
        assertEquals(type, client.getTransportName());
        awaitTrue("connected", () -> client.getState() == BayeuxClient.State.CONNECTED);
        awaitTrue("the server's session", () -> server.bayeux().getSession(client.getId()) != null);
        awaitTrue("the server sees the connection type", () -> type.equals(
                server.bayeux().getSession(client.getId()).getConnectionType()));
    }

    @ParameterizedTest
    @EnumSource(TestClients.Kind.class)
    void subscriberReceivesWhatAnotherClientPublishes(TestClients.Kind kind) throws Exception {
        server = TestServer.start();
        BayeuxClient alice = client(kind);
        BayeuxClient bob = client(kind);
        handshake(alice);
        handshake(bob);
        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        assertTrue(subscribe(alice, "/chat/room7", received::add).isSuccessful());

        Message reply = publish(bob, "/chat/room7", Map.of("text", "hello"));

        assertTrue(reply.isSuccessful(), reply.toJson());
        Message delivery = received.poll(10, TimeUnit.SECONDS);
        assertNotNull(delivery, "no delivery");
        assertEquals("/chat/room7", delivery.getChannel());
        assertEquals("hello", delivery.getDataAsMap().get("text"));
    }

    @ParameterizedTest
    @EnumSource(TestClients.Kind.class)
    void wildcardSubscriptionReceivesEveryMatchingChannel(TestClients.Kind kind) throws Exception {
        server = TestServer.start();
        BayeuxClient listener = client(kind);
        BayeuxClient publisher = client(kind);
        handshake(listener);
        handshake(publisher);
        BlockingQueue<String> oneLevel = new LinkedBlockingQueue<>();
        BlockingQueue<String> anyDepth = new LinkedBlockingQueue<>();
        subscribe(listener, "/stock/*", m -> oneLevel.add(m.getChannel()));
        subscribe(listener, "/stock/**", m -> anyDepth.add(m.getChannel()));

        publish(publisher, "/stock/acme", 1);
        publish(publisher, "/stock/acme/bid", 2);

        assertEquals("/stock/acme", oneLevel.poll(10, TimeUnit.SECONDS));
        assertEquals("/stock/acme", anyDepth.poll(10, TimeUnit.SECONDS));
        assertEquals("/stock/acme/bid", anyDepth.poll(10, TimeUnit.SECONDS));
        publish(publisher, "/stock/end", 3);
        assertEquals("/stock/end", oneLevel.poll(10, TimeUnit.SECONDS), "/stock/acme/bid is not one level deep");
    }

    @ParameterizedTest
    @EnumSource(TestClients.Kind.class)
    void unsubscribedListenerReceivesNoMore(TestClients.Kind kind) throws Exception {
        server = TestServer.start();
        BayeuxClient alice = client(kind);
        BayeuxClient bob = client(kind);
        handshake(alice);
        handshake(bob);
        BlockingQueue<Object> first = new LinkedBlockingQueue<>();
        BlockingQueue<Object> second = new LinkedBlockingQueue<>();
        MessageListener firstListener = m -> first.add(m.getData());
        subscribe(alice, "/news/world", firstListener);
        subscribe(alice, "/news/*", m -> second.add(m.getData()));

        CompletableFuture<Message> unsubscribed = new CompletableFuture<>();
        alice.unsubscribe("/news/world", firstListener, into(unsubscribed));
        assertTrue(await(unsubscribed).isSuccessful());
        publish(bob, "/news/world", "after");

        assertEquals("after", second.poll(10, TimeUnit.SECONDS));
        assertNull(first.poll(), "the unsubscribed listener got a message");
    }

    @ParameterizedTest
    @EnumSource(TestClients.Kind.class)
    void batchLeavesInOneRequest(TestClients.Kind kind) throws Exception {
        server = TestServer.start();
        List<Integer> sentSizes = new CopyOnWriteArrayList<>();
        BayeuxClient client = client(clients.builder(server.url(), kind).trafficListener(new TrafficListener() {
            @Override
            public void onSend(BayeuxClient c, List<? extends Message> batch) {
                if (!batch.get(0).isMeta()) {
                    sentSizes.add(batch.size());
                }
            }
        }));
        handshake(client);
        List<CompletableFuture<Message>> replies = new ArrayList<>();

        client.batch(() -> {
            for (int i = 0; i < 3; i++) {
                CompletableFuture<Message> reply = new CompletableFuture<>();
                replies.add(reply);
                client.publish("/batch", i, into(reply));
            }
        });

        for (CompletableFuture<Message> reply : replies) {
            assertTrue(await(reply).isSuccessful());
        }
        assertEquals(List.of(3), sentSizes);
    }

    @ParameterizedTest
    @EnumSource(TestClients.Kind.class)
    void publishBeforeTheHandshakeCompletesWaitsForIt(TestClients.Kind kind) throws Exception {
        server = TestServer.start();
        BayeuxClient client = client(kind);
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        CompletableFuture<Message> subscribed = new CompletableFuture<>();
        CompletableFuture<Message> published = new CompletableFuture<>();

        client.handshake();
        client.subscribe("/early", m -> received.add(m.getData()), into(subscribed));
        client.publish("/early", "first", into(published));

        assertTrue(await(subscribed).isSuccessful());
        assertTrue(await(published).isSuccessful());
        assertEquals("first", received.poll(10, TimeUnit.SECONDS));
    }

    @ParameterizedTest
    @EnumSource(TestClients.Kind.class)
    void refusedPublishFailsWithTheServersReply(TestClients.Kind kind) throws Exception {
        server = TestServer.start();
        BayeuxClient client = client(kind);
        handshake(client);
        server.bayeux().setSecurityPolicy(new io.weft.server.api.SecurityPolicy() {
            @Override
            public boolean canPublish(io.weft.server.api.BayeuxServer s, io.weft.server.api.ServerSession session,
                    io.weft.bayeux.ChannelId channel, Message message) {
                return !channel.id().equals("/forbidden");
            }
        });

        CompletableFuture<Message> reply = new CompletableFuture<>();
        client.publish("/forbidden", "x", into(reply));

        ExecutionException failure = assertThrows(ExecutionException.class, () -> reply.get(10, TimeUnit.SECONDS));
        ReplyException refused = assertInstanceOf(ReplyException.class, failure.getCause());
        assertTrue(refused.error().startsWith("403"), refused.error());
    }

    @ParameterizedTest
    @EnumSource(TestClients.Kind.class)
    void expiredSessionIsHandshakenAgainAndResubscribed(TestClients.Kind kind) throws Exception {
        server = TestServer.start(ServerOptions.builder().timeout(500).maxInterval(500).build());
        ConnectGate gate = new ConnectGate();
        BayeuxClient alice = client(clients.builder(server.url(), kind).extension(gate));
        BayeuxClient bob = client(kind);
        List<Message> handshakes = new CopyOnWriteArrayList<>();
        alice.addListener("/meta/handshake", handshakes::add);
        handshake(alice);
        handshake(bob);
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        subscribe(alice, "/chat/resume", m -> received.add(m.getData()));
        String firstSession = alice.getId();

        gate.closed = true;
        awaitTrue("the server expires the session", () -> server.bayeux().getSession(firstSession) == null);
        gate.closed = false;

        awaitTrue("a second handshake", () -> handshakes.size() == 2);
        awaitTrue("connected again", () -> alice.getState() == BayeuxClient.State.CONNECTED);
        assertNotEquals(firstSession, alice.getId());
        String secondSession = alice.getId();
        awaitTrue("resubscribed", () -> server.bayeux().getSession(secondSession) != null
                && !server.bayeux().getSession(secondSession).getSubscriptions().isEmpty());
        publish(bob, "/chat/resume", "again");
        assertEquals("again", received.poll(10, TimeUnit.SECONDS));
    }

    @ParameterizedTest
    @EnumSource(TestClients.Kind.class)
    void serverSideDisconnectEndsTheClient(TestClients.Kind kind) throws Exception {
        server = TestServer.start();
        BayeuxClient client = client(kind);
        handshake(client);
        awaitTrue("connected", () -> client.getState() == BayeuxClient.State.CONNECTED);

        server.bayeux().getSession(client.getId()).disconnect();

        awaitTrue("disconnected", () -> client.getState() == BayeuxClient.State.DISCONNECTED);
    }

    /**
     * The race behind this suite's one CI failure of {@code serverSideDisconnectEndsTheClient(EVENTSOURCE)}: the
     * client is told it is connected and sends its next connect at once, while the server disconnects the session. A
     * connect already past its session's lookup then met the ended session and was answered "402, handshake", beside
     * the disconnect notice on the stream; whichever the client read first won, and "handshake" made it start a new
     * session. Here an extension disconnects the session as that connect passes, so the race is lost every time.
     */
    @ParameterizedTest
    @EnumSource(TestClients.Kind.class)
    void aServerDisconnectThatMeetsTheNextConnectEndsTheClient(TestClients.Kind kind) throws Exception {
        // Held connects end after 300 ms: the client then sends its next one, on every transport.
        server = TestServer.start(ServerOptions.builder().timeout(300).build());
        AtomicBoolean armed = new AtomicBoolean();
        server.bayeux().addExtension(new Extension() {
            @Override
            public boolean incoming(ServerSession from, Message.Mutable message) {
                if (from != null && Message.META_CONNECT.equals(message.getChannel()) && armed.getAndSet(false)) {
                    from.disconnect();
                }
                return true;
            }
        });
        BayeuxClient client = client(kind);
        handshake(client);
        awaitTrue("connected", () -> client.getState() == BayeuxClient.State.CONNECTED);
        armed.set(true);

        awaitTrue("disconnected", () -> client.getState() == BayeuxClient.State.DISCONNECTED);
        assertEquals(1, server.bayeux().getStats().handshakesAccepted(), "no second handshake");
    }

    @ParameterizedTest
    @EnumSource(TestClients.Kind.class)
    void disconnectEndsTheServersSession(TestClients.Kind kind) throws Exception {
        server = TestServer.start();
        BayeuxClient client = client(kind);
        handshake(client);
        String id = client.getId();

        CompletableFuture<Message> reply = new CompletableFuture<>();
        client.disconnect(into(reply));

        assertTrue(await(reply).isSuccessful());
        assertEquals(BayeuxClient.State.DISCONNECTED, client.getState());
        awaitTrue("the session ends", () -> server.bayeux().getSession(id) == null);
    }

    @org.junit.jupiter.api.Test
    void aHeldPollOutlivesAnHttpClientIdleTimeoutShorterThanTheServersTimeout() throws Exception {
        server = TestServer.start(ServerOptions.builder().timeout(1_000).build());
        HttpClient shortIdle = TestClients.httpClient();
        ownHttpClients.add(shortIdle);
        shortIdle.setIdleTimeout(300); // for the connections it opens from now on: all of them
        AtomicInteger connectsSent = new AtomicInteger();
        AtomicInteger connectsAnswered = new AtomicInteger();
        BayeuxClient client = client(BayeuxClient.builder(server.url()).longPolling(shortIdle)
                .trafficListener(new TrafficListener() {
                    @Override
                    public void onSend(BayeuxClient c, List<? extends Message> batch) {
                        batch.stream().filter(m -> "/meta/connect".equals(m.getChannel()))
                                .forEach(m -> connectsSent.incrementAndGet());
                    }

                    @Override
                    public void onReceive(BayeuxClient c, List<? extends Message> batch) {
                        batch.stream().filter(m -> "/meta/connect".equals(m.getChannel()) && m.isSuccessful())
                                .forEach(m -> connectsAnswered.incrementAndGet());
                    }
                }));
        assertTrue(handshake(client).isSuccessful());

        // the first connect is answered at once, the next two after being held 1 s each, three times the
        // connection's idle timeout: none cut short, so no connect was sent again without its answer
        awaitTrue("three connects answered", () -> connectsAnswered.get() >= 3);
        assertTrue(connectsSent.get() <= connectsAnswered.get() + 1,
                connectsSent + " connects sent for " + connectsAnswered + " answered");
    }

    @org.junit.jupiter.api.Test
    void websocketFallsBackToLongPollingWhenThePathHasNoUpgrade() throws Exception {
        server = TestServer.withoutWebSocket();
        BayeuxClient alice = client(BayeuxClient.builder(server.url()).webSocket(clients.webSocket())
                .longPolling(clients.http()));
        BayeuxClient bob = client(TestClients.Kind.LONG_POLLING);

        assertTrue(handshake(alice).isSuccessful());

        assertEquals("long-polling", alice.getTransportName());
        handshake(bob);
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        subscribe(alice, "/fallback", m -> received.add(m.getData()));
        publish(bob, "/fallback", "reached");
        assertEquals("reached", received.poll(10, TimeUnit.SECONDS));
    }

    @ParameterizedTest
    @EnumSource(TestClients.Kind.class)
    void ackExtensionAcknowledgesEachConnectReplysBatch(TestClients.Kind kind) throws Exception {
        server = TestServer.start();
        server.bayeux().addExtension(new io.weft.server.ext.AcknowledgedMessagesExtension());
        List<Object> sentAcks = new CopyOnWriteArrayList<>();
        List<Object> receivedAcks = new CopyOnWriteArrayList<>();
        BayeuxClient alice = client(clients.builder(server.url(), kind).ackExtension(true)
                .trafficListener(new TrafficListener() {
                    @Override
                    public void onSend(BayeuxClient c, List<? extends Message> batch) {
                        collectAcks(batch, sentAcks);
                    }

                    @Override
                    public void onReceive(BayeuxClient c, List<? extends Message> batch) {
                        collectAcks(batch, receivedAcks);
                    }
                }));
        BayeuxClient bob = client(kind);
        Message handshake = handshake(alice);
        assertEquals(true, handshake.getExt().get("ack"), handshake.toJson());
        handshake(bob);
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        subscribe(alice, "/acked", m -> received.add(m.getData()));

        for (int i = 0; i < 5; i++) {
            publish(bob, "/acked", i);
        }

        for (int i = 0; i < 5; i++) {
            assertEquals(i, received.poll(10, TimeUnit.SECONDS), "in order, exactly once");
        }
        awaitTrue("an acknowledged batch", () -> receivedAcks.stream().anyMatch(sentAcks::contains));
        assertEquals(-1L, sentAcks.get(0), "nothing received yet at the first connect");
        // A message redelivered for want of an acknowledgement would come before anything published after it: the
        // marker arriving next proves that none came twice.
        publish(bob, "/acked", "marker");
        assertEquals("marker", received.poll(10, TimeUnit.SECONDS), "no message twice");
    }

    private static void collectAcks(List<? extends Message> batch, List<Object> into) {
        for (Message message : batch) {
            if ("/meta/connect".equals(message.getChannel()) && message.getExt() != null
                    && message.getExt().get("ack") instanceof Number ack) {
                into.add(ack.longValue());
            }
        }
    }

    /** Drops outgoing {@code /meta/connect} messages while closed, as a client cut off from the server would lose them. */
    private static final class ConnectGate implements ClientExtension {
        volatile boolean closed;

        @Override
        public boolean outgoing(BayeuxClient client, Message.Mutable message) {
            return !(closed && "/meta/connect".equals(message.getChannel()));
        }
    }
}
