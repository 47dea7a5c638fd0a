package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Extension;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerSession;
import io.weft.server.testing.Inbox;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Frames sent back to back are answered in the order sent, even when the first one's handling finishes later, on
 * another thread, than the second one could have.
 */
@Timeout(30)
class BatchOrderTest {
    @RegisterExtension
    static final Clients clients = new Clients();
    private final ExecutorService policyThread = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        policyThread.shutdownNow();
    }

    @Test
    void framesSentBackToBackAreAnsweredInOrderWhenTheFirstIsAuthorizedLater() throws Exception {
        CountDownLatch fastSeen = new CountDownLatch(1);
        try (EmbeddedServer server = EmbeddedServer.start();
                ScriptedClient client = new ScriptedClient(RawSocket.connect(clients.webSocket(), server.wsUri()))) {
            server.bayeux().addExtension(new Extension() {
                @Override
                public boolean incoming(ServerSession from, Message.Mutable message) {
                    if ("/order/fast".equals(message.getChannel())) {
                        fastSeen.countDown();
                    }
                    return true;
                }
            });
            // The slow publish is authorized on another thread once the fast one has reached the engine (which it
            // must not, before the slow one is done), or after a second.
            server.bayeux().setSecurityPolicy(new SecurityPolicy() {
                @Override
                public void canPublish(BayeuxServer bayeux, ServerSession session, ChannelId channel, Message message,
                        Promise<Boolean> answer) {
                    if (channel.toString().equals("/order/slow")) {
                        policyThread.execute(() -> {
                            try {
                                fastSeen.await(1, TimeUnit.SECONDS);
                            } catch (InterruptedException x) {
                                Thread.currentThread().interrupt();
                            }
                            answer.succeed(true);
                        });
                    } else {
                        answer.succeed(true);
                    }
                }
            });
            client.handshake();
            client.connect();
            client.subscribe("/order/*");
            List<String> received = new CopyOnWriteArrayList<>();
            client.wire().onReceive(batch -> batch.forEach(m -> received.add(describe(m))));

            client.wire().send(Json.write(List.of(client.message("/order/slow", "id", "slow", "data", "first"))));
            client.wire().send(Json.write(List.of(client.message("/order/fast", "id", "fast", "data", "second"))));

            client.inbox().take(Inbox.reply("/order/fast", "fast"), ScriptedClient.WAIT, "the second reply");
            client.awaitDelivery("/order/fast", "second");
            List<String> ours = received.stream().filter(line -> line.contains("/order/")).toList();
            // Within one frame's answer the reply and the delivery may come in either order; across frames, never.
            assertEquals(4, ours.size(), ours.toString());
            assertEquals(Set.of("reply /order/slow", "delivery /order/slow"), Set.copyOf(ours.subList(0, 2)),
                    ours.toString());
            assertEquals(Set.of("reply /order/fast", "delivery /order/fast"), Set.copyOf(ours.subList(2, 4)),
                    ours.toString());
        }
    }

    private static String describe(Map<String, Object> message) {
        return (message.containsKey("successful") ? "reply " : "delivery ") + message.get("channel");
    }
}
