package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Limit;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.Json;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Channel names, subscription lists and channel counts a client sends are bounded, refused at once, and counted. */
class ChannelBoundsTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServer server;

    private BayeuxServer start(ServerOptions options) {
        server = BayeuxServer.create(options, scheduler);
        return server;
    }

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
    }

    private static String deep(int segments) {
        return "/a".repeat(segments);
    }

    private int channels() {
        return server.getStats().channels();
    }

    @Test
    void aChannelLongerThanMaxChannelLengthIsRefusedBeforeItIsParsedAndCounted() {
        start(ServerOptions.defaults());
        ScriptedClient client = ScriptedClient.connected(server, "b");
        String name = deep(5_000);
        Map<String, Object> subscribe = client.subscribe(name);
        assertEquals(false, subscribe.get("successful"));
        assertEquals("429:maxChannelLength:limit_exceeded", subscribe.get("error"));
        Map<String, Object> publish = client.publishJson(name, "1").get(0);
        assertEquals("429:maxChannelLength:limit_exceeded", publish.get("error"));
        assertEquals(0, channels(), "no channel was created for a refused name");
        assertEquals(2, server.getRefusals().get(Limit.CHANNEL_LENGTH));
    }

    @Test
    void aChannelDeeperThanMaxChannelDepthIsRefused() {
        start(ServerOptions.builder().maxChannelDepth(4).build());
        ScriptedClient client = ScriptedClient.connected(server, "b");
        assertEquals(true, client.subscribe(deep(4)).get("successful"));
        assertEquals("429:maxChannelDepth:limit_exceeded", client.subscribe(deep(5)).get("error"));
        assertEquals("429:maxChannelDepth:limit_exceeded", client.publishJson(deep(5), "1").get(0).get("error"));
        assertEquals(2, server.getRefusals().get(Limit.CHANNEL_DEPTH));
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void creatingEveryAncestorOfADeepChannelIsLinear() {
        // Server code is not bounded: a channel 20,000 segments deep has 20,000 ancestors. Each used to parse its own
        // path (quadratic: 200 million segment strings); now each shares the requested channel's segments.
        start(ServerOptions.defaults());
        ChannelId id = ChannelId.of(deep(20_000));
        server.createChannelIfAbsent(id.id());
        assertEquals(20_000, channels());
        assertEquals(ChannelId.of(deep(3)), id.prefix(3));
        assertEquals(deep(3), id.prefix(3).id());
        assertNotNull(server.getChannel(deep(19_999)));
    }

    @Test
    void aSubscriptionListLongerThanTheSessionsLimitIsRefusedWhole() {
        start(ServerOptions.defaults());
        ScriptedClient client = ScriptedClient.connected(server, "b");
        Map<String, Object> reply = subscribeAll(client, names(257));
        assertEquals("429:maxSubscriptionsPerSession:limit_exceeded", reply.get("error"));
        assertEquals(0, server.getSession(client.clientId()).getSubscriptions().size());
        assertEquals(1, server.getRefusals().get(Limit.SUBSCRIPTIONS));
    }

    @Test
    void aLongSubscriptionListIsAuthorizedIterativelyWithoutOverflowingTheStack() {
        // The asynchronous form of the policy, answering at once: each answer used to call the next check from
        // inside the previous one, one stack frame group per channel, until StackOverflowError.
        start(ServerOptions.builder().maxSubscriptionsPerSession(50_000).build());
        server.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public void canSubscribe(BayeuxServer bayeux, ServerSession session, ChannelId channel, Message message,
                    Promise<Boolean> answer) {
                answer.succeed(true);
            }
        });
        ScriptedClient client = ScriptedClient.connected(server, "b");
        List<String> names = names(40_000);
        Map<String, Object> reply = subscribeAll(client, names);
        assertEquals(true, reply.get("successful"), String.valueOf(reply.get("error")));
        assertEquals(40_000, server.getSession(client.clientId()).getSubscriptions().size());
    }

    @Test
    void aSessionHoldsAtMostMaxSubscriptionsChannels() {
        start(ServerOptions.builder().maxSubscriptionsPerSession(3).build());
        ScriptedClient client = ScriptedClient.connected(server, "b");
        assertEquals(true, subscribeAll(client, List.of("/a", "/b")).get("successful"));
        assertEquals("429:maxSubscriptionsPerSession:limit_exceeded",
                subscribeAll(client, List.of("/c", "/d")).get("error"));
        assertEquals(true, client.subscribe("/a").get("successful"), "subscribing again takes no new place");
        assertEquals(true, client.subscribe("/c").get("successful"));
        assertEquals("429:maxSubscriptionsPerSession:limit_exceeded", client.subscribe("/d").get("error"));
        assertEquals(3, server.getSession(client.clientId()).getSubscriptions().size());
    }

    @Test
    void subscriptionsThatWouldCreateMoreThanMaxChannelsAreRefused() {
        start(ServerOptions.builder().maxChannels(5).build());
        ScriptedClient client = ScriptedClient.connected(server, "b");
        assertEquals(true, client.subscribe("/a/b/c").get("successful"));
        assertEquals(3, channels());
        assertEquals("429:maxChannels:limit_exceeded", client.subscribe("/x/y/z").get("error"));
        assertEquals(true, client.subscribe("/a/b/d").get("successful"), "one more fits");
        assertEquals(4, channels());
        assertEquals(1, server.getRefusals().get(Limit.CHANNELS));
    }

    @Test
    void oneAddressCreatesAtMostItsShareOfTheChannelsAndAnotherIsServed() throws Exception {
        start(ServerOptions.builder().maxChannels(100).maxChannelsPerAddress(10).build());
        InMemoryTransport hostile = InMemoryTransport.polling(server).from(InetAddress.getByName("192.0.2.1"));
        ScriptedClient first = new ScriptedClient(hostile, "h1");
        first.handshake();
        for (int i = 0; i < 9; i++) {
            assertEquals(true, first.subscribe("/h/" + i).get("successful"), "channel " + i);
        }
        assertEquals(10, channels(), "/h and nine below it");
        assertEquals("429:maxChannelsPerAddress:limit_exceeded", first.subscribe("/h/9").get("error"));
        ScriptedClient second = new ScriptedClient(hostile, "h2");
        second.handshake();
        assertEquals("429:maxChannelsPerAddress:limit_exceeded", second.subscribe("/other").get("error"),
                "the share is the address's, whatever the number of its sessions");
        assertEquals(true, second.subscribe("/h/3").get("successful"), "channels that exist cost no share");

        InMemoryTransport elsewhere = InMemoryTransport.polling(server).from(InetAddress.getByName("192.0.2.2"));
        ScriptedClient bystander = new ScriptedClient(elsewhere, "b");
        bystander.handshake();
        assertEquals(true, bystander.subscribe("/room/1").get("successful"), "another address has its own share");
        assertEquals(2, server.getRefusals().get(Limit.CHANNELS_PER_ADDRESS));

        first.disconnect();
        second.disconnect();
        for (int sweep = 0; sweep < 6; sweep++) {
            scheduler.advance(ServerOptions.defaults().sweepPeriod());
        }
        assertEquals(2, channels(), "the hostile address's channels are gone; the bystander's stay");
        ScriptedClient later = new ScriptedClient(hostile, "h3");
        later.handshake();
        assertEquals(true, later.subscribe("/h/9").get("successful"), "removed channels give their share back");
    }

    @Test
    void clientsSubscribeToTheRootWildcardsOnlyWhenAllowed() {
        start(ServerOptions.defaults());
        ScriptedClient client = ScriptedClient.connected(server, "b");
        assertEquals("403:clientRootWildcards:subscribe_denied", client.subscribe("/**").get("error"));
        assertEquals("403:clientRootWildcards:subscribe_denied", client.subscribe("/*").get("error"));
        assertEquals(true, client.subscribe("/chat/**").get("successful"));
        assertEquals(2, server.getRefusals().get(Limit.ROOT_WILDCARD));
        server.close();
        start(ServerOptions.builder().clientRootWildcards(true).build());
        assertEquals(true, ScriptedClient.connected(server, "b").subscribe("/**").get("successful"));
    }

    @Test
    void aRefusedChannelNameIsEchoedShortAndClean() {
        start(ServerOptions.defaults());
        ScriptedClient client = ScriptedClient.connected(server, "b");
        Map<String, Object> reply = subscribeAll(client, List.of("/ok", "no:slash" + "x".repeat(200)));
        String error = (String) reply.get("error");
        assertTrue(error.startsWith("405:no_slash"), error);
        assertTrue(error.length() < 100, error);
        assertNull(server.getChannel("/ok"), "all or nothing");
    }

    private static List<String> names(int count) {
        List<String> names = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            names.add("/c/" + i);
        }
        return names;
    }

    private static Map<String, Object> subscribeAll(ScriptedClient client, List<String> names) {
        return client.send("[{\"channel\":\"/meta/subscribe\",\"clientId\":\"" + client.clientId()
                + "\",\"subscription\":" + Json.write(names) + "}]").get(0);
    }
}
