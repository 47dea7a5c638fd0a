package io.weft.server.serverapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.MessageDecodeException;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.Service;
import io.weft.server.spi.Broker;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.SocketClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three servers joined by a {@link Broker} over an in-memory bus that behaves as Redis pub/sub does: every node gets
 * a copy of every publish per matching channel or pattern it subscribed to, its own included, as bytes. Each subscriber on each
 * node receives each broadcast exactly once, in its publisher's order; service channels stay on their node; a node
 * asks the bus only for what its sessions need.
 */
class ClusterBrokerTest {
    private final Bus bus = new Bus();
    private final List<BayeuxServer> servers = new ArrayList<>();

    @AfterEach
    void close() {
        servers.forEach(BayeuxServer::close);
    }

    private Node node(String name) {
        BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), new ManualScheduler());
        servers.add(server);
        BusBroker broker = new BusBroker(bus, name);
        Broker.install(server, broker);
        return new Node(server, broker, InMemoryTransport.websocket(server));
    }

    private record Node(BayeuxServer server, BusBroker broker, InMemoryTransport websocket) {
        SocketClient client(String browser, String... channels) {
            SocketClient client = new SocketClient(websocket, browser);
            client.handshake();
            client.connect();
            for (String channel : channels) {
                client.subscribe(channel);
            }
            client.drain();
            return client;
        }
    }

    /** The data of every message (not replies) the client has been sent since the last call. */
    private static List<Object> received(SocketClient client) {
        List<Object> data = new ArrayList<>();
        for (Map<String, Object> message : client.drain()) {
            if (!String.valueOf(message.get("channel")).startsWith("/meta/") && !message.containsKey("successful")) {
                data.add(message.get("data"));
            }
        }
        return data;
    }

    @Test
    void everySubscriberOnEveryNodeReceivesEachPublishOnceInOrder() {
        Node a = node("a");
        Node b = node("b");
        Node c = node("c");
        SocketClient onA = a.client("1", "/chat/room");
        SocketClient onB = b.client("2", "/chat/room");
        SocketClient wildOnC = c.client("3", "/chat/*", "/chat/room", "/chat/**");
        SocketClient publisher = b.client("4");

        for (int i = 0; i < 50; i++) {
            publisher.publish("/chat/room", String.valueOf(i));
        }

        List<Object> expected = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            expected.add(i);
        }
        assertEquals(expected, received(onA), "across nodes, in order");
        assertEquals(expected, received(onB), "on the publisher's node, from its own fan-out only");
        assertEquals(expected, received(wildOnC), "three matching subscriptions, each message once");
        assertEquals(50, bus.published.size(), "each publish crossed the bus once");
    }

    @Test
    void aNodeAsksTheBusOnlyForWhatItsSessionsNeed() {
        Node a = node("a");
        Node b = node("b");
        SocketClient first = a.client("1", "/news/x");
        SocketClient second = a.client("2", "/news/x", "/news/*");
        assertEquals(List.of("+/news/x", "+/news/*"), a.broker.calls, "the first subscriber of each, once");
        assertEquals(List.of(), b.broker.calls, "b has no subscriber");

        first.send("[{\"channel\":\"/meta/unsubscribe\",\"subscription\":\"/news/x\",\"clientId\":\""
                + first.clientId() + "\"}]");
        assertEquals(List.of("+/news/x", "+/news/*"), a.broker.calls, "second still listens");
        second.send("[{\"channel\":\"/meta/disconnect\",\"clientId\":\"" + second.clientId() + "\"}]");
        assertEquals(4, a.broker.calls.size(), a.broker.calls.toString());
        assertEquals(Set.of("-/news/x", "-/news/*"), Set.copyOf(a.broker.calls.subList(2, 4)),
                "the last one left both by disconnecting: " + a.broker.calls);

        SocketClient publisher = b.client("3");
        publisher.publish("/news/x", "1");
        assertEquals(0, a.broker.delivered, "nothing reached a node nobody there listens on");
    }

    @Test
    void serviceChannelsAndDirectDeliveriesStayOnTheirNode() {
        Node a = node("a");
        Node b = node("b");
        a.server.addService("/service/echo", Service.of((session, message) -> {
            session.deliver(null, "/echo", message.getData());
            return null;
        }));
        SocketClient caller = a.client("1", "/echo");
        SocketClient elsewhere = b.client("2", "/echo", "/service/**");

        caller.publish("/service/echo", "\"hi\"");

        assertEquals(List.of("hi"), received(caller));
        assertEquals(List.of(), received(elsewhere));
        assertEquals(0, bus.published.size(), "nothing crossed the bus");
    }

    @Test
    void aBrokerIsInstalledBeforeTheServerHasSessions() {
        BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), new ManualScheduler());
        servers.add(server);
        new SocketClient(InMemoryTransport.websocket(server), "x").handshake();
        assertThrows(IllegalStateException.class, () -> Broker.install(server, new BusBroker(bus, "late")));
    }

    /** Redis pub/sub in miniature: channels and patterns, every subscriber of a match gets every message. */
    static final class Bus {
        final List<byte[]> published = new CopyOnWriteArrayList<>();
        private final Map<BusBroker, Set<ChannelId>> subscriptions = new ConcurrentHashMap<>();

        void subscribe(BusBroker node, ChannelId channel) {
            subscriptions.computeIfAbsent(node, n -> ConcurrentHashMap.newKeySet()).add(channel);
        }

        void unsubscribe(BusBroker node, ChannelId channel) {
            subscriptions.getOrDefault(node, Set.of()).remove(channel);
        }

        void publish(ChannelId channel, String from, long sequence, byte[] json) {
            published.add(json);
            subscriptions.forEach((node, channels) -> {
                for (ChannelId pattern : channels) {
                    if (pattern.matches(channel)) {
                        node.received(from, sequence, json);
                    }
                }
            });
        }
    }

    /**
     * A node's broker on the bus: tags what it publishes with its name and a sequence number, drops its own when they
     * come back, and delivers each other node's publish once (the highest sequence seen from each node).
     */
    static final class BusBroker implements Broker {
        final List<String> calls = new CopyOnWriteArrayList<>();
        private final Bus bus;
        private final String name;
        private final Map<String, Long> lastDelivered = new ConcurrentHashMap<>();
        private long sequence;
        private volatile Hub hub;
        volatile int delivered;

        BusBroker(Bus bus, String name) {
            this.bus = bus;
            this.name = name;
        }

        @Override
        public void start(Hub hub) {
            this.hub = hub;
        }

        @Override
        public synchronized void publish(Message message) {
            bus.publish(ChannelId.of(message.getChannel()), name, ++sequence, hub.codec().encode(List.of(message)));
        }

        void received(String from, long number, byte[] json) {
            if (name.equals(from) || lastDelivered.getOrDefault(from, 0L) >= number) {
                return;
            }
            lastDelivered.put(from, number);
            try {
                for (Message message : hub.codec().decode(json, 0, json.length)) {
                    delivered++;
                    hub.deliver(message);
                }
            } catch (MessageDecodeException x) {
                throw new AssertionError(x);
            }
        }

        @Override
        public void subscribe(ChannelId channel) {
            calls.add("+" + channel);
            bus.subscribe(this, channel);
        }

        @Override
        public void unsubscribe(ChannelId channel) {
            calls.add("-" + channel);
            bus.unsubscribe(this, channel);
        }

        @Override
        public void stop() {
        }
    }
}
