package io.weft.examples.chat;

import static io.weft.examples.chat.JavaClients.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.client.BayeuxClient;
import io.weft.client.ReplyException;
import io.weft.cluster.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The chat on two nodes sharing a real redis-server (each test its own), as {@code --redis} starts them: users on
 * different nodes see each other join, chat and leave, and the users of a node killed outright vanish from the other
 * node's lists within the expiry. Weft's Java client over real sockets, websocket on one node and long-polling on the
 * other.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChatClusterTest {
    @RegisterExtension
    final RedisServer redis = new RedisServer();
    private final List<AutoCloseable> started = new ArrayList<>();
    private JavaClients clients;

    @BeforeEach
    void startClients() throws Exception {
        clients = new JavaClients();
    }

    @AfterEach
    void stopEverything() throws Exception {
        clients.close();
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    private ChatServer node(Duration announceEvery) throws Exception {
        ChatServer node = ChatServer.start(ChatServer.Settings.of(0).withRedis(redis.uri())
                .withAnnounceEvery(announceEvery));
        started.add(node);
        return node;
    }

    private BayeuxClient user(String baseUrl, String transport) throws Exception {
        return clients.connect(baseUrl + ChatServer.BAYEUX_PATH, transport);
    }

    @Test
    void usersOnTwoNodesSeeEachOtherJoinChatAndLeave() throws Exception {
        // long periods: every list here is one sent at a change, and no list can expire on a busy machine
        ChatServer a = node(Duration.ofSeconds(30));
        ChatServer b = node(Duration.ofSeconds(30));

        BayeuxClient ann = user(a.baseUrl(), "websocket");
        Inbox annSees = subscribe(ann, "/chat/lobby", "/members/lobby");
        BayeuxClient ben = user(b.baseUrl(), "long-polling");
        Inbox benSees = subscribe(ben, "/chat/lobby", "/members/lobby");

        assertEquals(List.of("ann"), join(ann, "lobby", "ann").get("members"));
        // node A's join notice crosses like any broadcast; node B tells its subscribers the list when it hears A's
        assertEquals("ann", benSees.next(data -> "join".equals(data.get("type"))).get("user"));
        benSees.next(members("ann"));
        assertEquals(Set.of("ann", "ben"), Set.copyOf(names(join(ben, "lobby", "ben").get("members"))));
        annSees.next(data -> "join".equals(data.get("type")) && "ben".equals(data.get("user")));
        annSees.next(members("ann", "ben"));
        // both nodes show one list, in the same order
        assertEquals(a.rooms().members("lobby"), b.rooms().members("lobby"));
        List<Map<String, Object>> rooms = rooms(ann);
        assertEquals(1, rooms.size(), rooms.toString());
        assertEquals("lobby", rooms.get(0).get("room"));
        assertEquals(2, ((Number) rooms.get(0).get("members")).intValue(), "counted over both nodes: " + rooms);

        // chat crosses both ways, under the name each node knows
        await(p -> ann.publish("/chat/lobby", Map.of("text", "hello from A"), p));
        assertEquals("ann", benSees.next(text("hello from A")).get("user"));
        await(p -> ben.publish("/chat/lobby", Map.of("text", "hello from B", "user", "not ben"), p));
        assertEquals("ben", annSees.next(text("hello from B")).get("user"));

        BayeuxClient cy = user(b.baseUrl(), "websocket");
        join(cy, "lobby", "cy");
        annSees.next(members("ann", "ben", "cy"));

        // ben leaves on B; then cy, still there, speaks on B: what B said about ben came to A before that line
        await(p -> ben.publish(ChatRooms.LEAVE, Map.of("room", "lobby"), p));
        await(p -> cy.publish("/chat/lobby", Map.of("text", "marker"), p));
        List<Map<String, Object>> seen = annSees.until(text("marker"));
        assertEquals(1, seen.stream().filter(data -> "leave".equals(data.get("type"))
                && "ben".equals(data.get("user"))).count(), "one notice of ben leaving, from his node: " + seen);
        List<Map<String, Object>> lists = seen.stream().filter(data -> data.containsKey("members")).toList();
        assertEquals(1, lists.size(), "one list per change, from ann's node; none from node B: " + seen);
        assertTrue(members("ann", "cy").test(lists.get(0)), seen.toString());
        assertEquals(Set.of("ann", "cy"), Set.copyOf(a.rooms().members("lobby")));
    }

    @Test
    void theUsersOfANodeKilledOutrightVanishFromTheOtherNodeWithinTheExpiry() throws Exception {
        Duration every = Duration.ofMillis(500);
        ChatServer a = node(every);
        DemoProcess b = DemoProcess.start("--port=0", "--redis=" + redis.uri(), "--announce=" + every.toMillis());
        started.add(b);
        int bPort = b.port();

        BayeuxClient ann = user(a.baseUrl(), "websocket");
        Inbox annSees = subscribe(ann, "/chat/lobby", "/members/lobby");
        join(ann, "lobby", "ann");
        BayeuxClient ben = user("http://127.0.0.1:" + bPort, "long-polling");
        join(ben, "lobby", "ben");
        annSees.next(members("ann", "ben"));

        b.kill(); // SIGKILL: node B says nothing to anyone, its sessions are gone with it
        long killed = System.nanoTime();
        Map<String, Object> gone = annSees.next(data -> "leave".equals(data.get("type"))
                && "ben".equals(data.get("user")));
        assertEquals("node lost", gone.get("reason"));
        annSees.next(members("ann"));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        // B's last list expires 3 periods after it came, found by A's next sweep (1 period); 2 s for a busy machine
        long bound = Roster.EXPIRES_AFTER * every.toMillis() + every.toMillis() + 2000;
        assertTrue(tookMillis <= bound, "ben vanished " + tookMillis + " ms after his node died; bound " + bound);
        assertEquals(List.of("ann"), a.rooms().members("lobby"));
    }

    @Test
    void theUsersOfANodeStoppedInAnOrderlyWayLeaveAtOnce() throws Exception {
        ChatServer a = node(Duration.ofSeconds(30)); // no expiry within this test: what happens comes from B itself
        ChatServer b = node(Duration.ofSeconds(30));
        BayeuxClient ann = user(a.baseUrl(), "websocket");
        Inbox annSees = subscribe(ann, "/chat/lobby", "/members/lobby");
        join(ann, "lobby", "ann");
        BayeuxClient ben = user(b.baseUrl(), "websocket");
        join(ben, "lobby", "ben");
        annSees.next(members("ann", "ben"));

        b.close(); // what the demo's shutdown hook does on Ctrl-C, and the WAR's listener on undeploy
        Map<String, Object> left = annSees.next(data -> "leave".equals(data.get("type"))
                && "ben".equals(data.get("user")));
        assertEquals("node stopped", left.get("reason"));
        annSees.next(members("ann"));
        assertEquals(List.of("ann"), a.rooms().members("lobby"));
    }

    @Test
    void clientsCanNeitherListenToNorSpeakOnTheRoster() throws Exception {
        ChatServer a = node(Duration.ofSeconds(1));
        BayeuxClient eve = user(a.baseUrl(), "long-polling");
        ReplyException listen = assertThrows(ReplyException.class,
                () -> await(p -> eve.subscribe(Roster.CHANNEL, new Inbox(), p)));
        assertTrue(String.valueOf(listen.reply().get("error")).startsWith("403"), listen.reply().toString());
        Map<String, Object> forged = Map.of("node", "forged", "ttl", 60000,
                "rooms", Map.of("lobby", Map.of("change", 1, "members", List.of("mallory"))));
        ReplyException speak = assertThrows(ReplyException.class,
                () -> await(p -> eve.publish(Roster.CHANNEL, forged, p)));
        assertTrue(String.valueOf(speak.reply().get("error")).startsWith("403"), speak.reply().toString());
        assertEquals(List.of(), a.rooms().members("lobby"));
    }

    private static Inbox subscribe(BayeuxClient client, String... channels) throws Exception {
        Inbox inbox = new Inbox();
        for (String channel : channels) {
            await(p -> client.subscribe(channel, inbox, p));
        }
        return inbox;
    }

    private static Map<String, Object> join(BayeuxClient client, String room, String name) throws Exception {
        Map<String, Object> reply = await(p -> client.publish(ChatRooms.JOIN, Map.of("room", room, "name", name), p))
                .getDataAsMap();
        assertEquals(name, reply.get("name"), String.valueOf(reply));
        return reply;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> rooms(BayeuxClient client) throws Exception {
        return (List<Map<String, Object>>) await(p -> client.publish(ChatRooms.ROOMS, Map.of(), p)).getData();
    }

    /** A member list of exactly these names, in any order (the nodes' order depends on their random ids). */
    private static Predicate<Map<String, Object>> members(String... names) {
        return data -> data.get("members") instanceof List<?> list && list.size() == names.length
                && Set.copyOf(list).equals(Set.of(names));
    }

    private static Predicate<Map<String, Object>> text(String text) {
        return data -> "chat".equals(data.get("type")) && text.equals(data.get("text"));
    }

    private static List<String> names(Object members) {
        return ((List<?>) members).stream().map(String::valueOf).toList();
    }
}
