package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerChannel;
import io.weft.transport.netty.testing.NettyLeaks;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.cometd.bayeux.Message;
import org.cometd.bayeux.client.ClientSessionChannel;
import org.cometd.client.BayeuxClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The official CometD 9 Java client, unchanged, against Weft: the interoperability the design promises. The one
 * module that runs it: on embedded Jetty (the handler mount) and in Tomcat (the Servlet mount), over websocket and
 * long-polling (it has no callback-polling).
 */
@Timeout(30)
class OfficialClientTest {
    @RegisterExtension
    static final NettyLeaks leaks = new NettyLeaks();

    private static OfficialClients clients;
    private BayeuxHost server;

    @BeforeAll
    static void startClients() throws Exception {
        clients = new OfficialClients();
    }

    @AfterAll
    static void stopClients() throws Exception {
        clients.close();
    }

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    static Stream<Arguments> everywhere() {
        return Container.with(TransportKind.WEBSOCKET, TransportKind.LONG_POLLING);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everywhere")
    void officialClientHandshakesSubscribesPublishesUnsubscribesAndDisconnects(Container container,
            TransportKind transport) throws Exception {
        server = container.start();
        BayeuxClient alice = clients.client(server, transport);
        BayeuxClient bob = clients.client(server, transport);
        try {
            alice.handshake();
            bob.handshake();
            assertTrue(alice.waitFor(5000, BayeuxClient.State.CONNECTED), "alice connected");
            assertTrue(bob.waitFor(5000, BayeuxClient.State.CONNECTED), "bob connected");
            assertEquals(transport.connectionType(), alice.getTransport().getName());
            assertNotNull(server.bayeux().getSession(alice.getId()));
            assertEquals(transport.connectionType(), server.bayeux().getSession(alice.getId()).getConnectionType());
            if (transport == TransportKind.LONG_POLLING) {
                // What transport-longpoll's test of the client checked. Over websocket the client keeps the upgrade
                // response's cookie against embedded Jetty but not against Tomcat: not something Weft decides.
                assertNotNull(alice.getCookie("BAYEUX_BROWSER"), "the client keeps the browser cookie");
            }

            BlockingQueue<Message> room = new LinkedBlockingQueue<>();
            BlockingQueue<Object> marker = new LinkedBlockingQueue<>();
            ClientSessionChannel.MessageListener roomListener = (channel, message) -> room.add(message);
            assertTrue(await(done -> alice.getChannel("/chat/room7").subscribe(roomListener, done)).isSuccessful());
            assertTrue(await(done -> alice.getChannel("/chat/marker")
                    .subscribe((channel, message) -> marker.add(message.getData()), done)).isSuccessful());

            assertTrue(await(done -> bob.getChannel("/chat/room7").publish(Map.of("text", "hi"), done))
                    .isSuccessful());
            Message delivery = room.poll(5, TimeUnit.SECONDS);
            assertNotNull(delivery, "alice received bob's publish");
            assertEquals("/chat/room7", delivery.getChannel());
            assertEquals(Map.of("text", "hi"), delivery.getDataAsMap());

            assertTrue(await(done -> alice.getChannel("/chat/room7").unsubscribe(roomListener, done))
                    .isSuccessful());
            assertEquals(List.of("/chat/marker"), server.bayeux().getSession(alice.getId()).getSubscriptions().stream()
                    .map(ServerChannel::getId).toList(), "the server dropped the subscription");
            bob.getChannel("/chat/room7").publish("after unsubscribe");
            bob.getChannel("/chat/marker").publish("marker");
            assertEquals("marker", marker.poll(5, TimeUnit.SECONDS));
            assertNull(room.poll(), "nothing reached alice on the channel she left");

            String aliceId = alice.getId();
            assertTrue(alice.disconnect(5000), "alice disconnected");
            assertNull(server.bayeux().getSession(aliceId), "the server ended alice's session");
        } finally {
            alice.disconnect(1000);
            bob.disconnect(1000);
        }
    }

    private interface Call {
        void start(org.cometd.bayeux.client.ClientSession.MessageListener done);
    }

    private static Message await(Call call) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        call.start(reply::complete);
        return reply.get(5, TimeUnit.SECONDS);
    }
}
