package io.weft.server.serverapi;

import static io.weft.server.serverapi.ListenersTest.data;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.Promise;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerChannel;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ChannelFeaturesTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    private void sweeps(int count) {
        for (int i = 0; i < count; i++) {
            scheduler.advance(1_000);
        }
    }

    @Test
    void persistentChannelsStayAndUnusedOnesAreSwept() {
        server.createChannelIfAbsent("/kept", channel -> channel.setPersistent(true));
        server.createChannelIfAbsent("/watched").addListener((ServerChannel.MessageListener) (f, c, m) -> true);
        server.createChannelIfAbsent("/guarded").addAuthorizer((op, channel, session, message) -> null);
        server.createChannelIfAbsent("/unused");
        sweeps(5);
        assertNotNull(server.getChannel("/kept"));
        assertNotNull(server.getChannel("/watched"));
        assertNotNull(server.getChannel("/guarded"));
        assertNull(server.getChannel("/unused"));
    }

    @Test
    void broadcastToPublisherIsSetPerChannel() {
        server.createChannelIfAbsent("/quiet", channel -> channel.setBroadcastToPublisher(false));
        ScriptedClient client = ScriptedClient.connected(server, "a");
        client.subscribe("/quiet");
        client.subscribe("/loud");
        client.publishJson("/quiet", "1");
        client.publishJson("/loud", "2");
        List<Map<String, Object>> replies = client.connectNow();
        assertEquals(List.of(), data(replies, "/quiet"));
        assertEquals(List.of(2), data(replies, "/loud"));
    }

    @Test
    void aLazyMessageDoesNotWakeAHeldConnectUntilItsTimeout() {
        server.createChannelIfAbsent("/lazy", channel -> {
            channel.setLazy(true);
            channel.setLazyTimeout(1_000);
        });
        ScriptedClient reader = ScriptedClient.connected(server, "r");
        reader.subscribe("/lazy");
        CompletableFuture<String> held = reader.heldConnect();
        ScriptedClient.connected(server, "w").publishJson("/lazy", "1");
        assertFalse(held.isDone());
        scheduler.advance(999);
        assertFalse(held.isDone());
        scheduler.advance(1);
        assertEquals(List.of(1), data(ScriptedClient.await(held), "/lazy"));
    }

    @Test
    void aNonLazyMessageTakesTheLazyOnesAlong() {
        server.createChannelIfAbsent("/lazy", channel -> channel.setLazy(true));
        ScriptedClient reader = ScriptedClient.connected(server, "r");
        reader.subscribe("/lazy");
        reader.subscribe("/now");
        CompletableFuture<String> held = reader.heldConnect();
        ScriptedClient writer = ScriptedClient.connected(server, "w");
        writer.publishJson("/lazy", "1");
        assertFalse(held.isDone());
        writer.publishJson("/now", "2");
        List<Map<String, Object>> replies = ScriptedClient.await(held);
        assertEquals(List.of(1), data(replies, "/lazy"));
        assertEquals(List.of(2), data(replies, "/now"));
    }

    @Test
    void aLazyChannelsTimeoutIsCappedByMaxLazyTimeout() {
        ServerChannel channel = server.createChannelIfAbsent("/lazy");
        channel.setLazyTimeout(60_000);
        assertEquals(5_000, channel.getLazyTimeout());
    }

    @Test
    void serverCodePublishesThroughListenersToSubscribers() {
        ServerChannel news = server.createChannelIfAbsent("/news", channel -> channel.addListener(
                (ServerChannel.MessageListener) (from, c, message) -> {
                    message.setData("[server] " + message.getData());
                    return true;
                }));
        ScriptedClient reader = ScriptedClient.connected(server, "r");
        reader.subscribe("/news");
        AtomicReference<Boolean> delivered = new AtomicReference<>();
        news.publish(null, "hello", Promise.from(delivered::set, x -> { }));
        assertTrue(delivered.get());
        assertEquals(List.of("[server] hello"), data(reader.connectNow(), "/news"));
    }

    @Test
    void serverCodeCannotPublishToWildcardOrMetaChannels() {
        assertThrows(IllegalArgumentException.class, () -> server.createChannelIfAbsent("/a/*").publish(null, 1));
        assertThrows(IllegalArgumentException.class, () -> server.createChannelIfAbsent("/meta/x").publish(null, 1));
    }
}
