package io.weft.examples.chat;

import static io.weft.examples.chat.JavaClients.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.client.BayeuxClient;
import io.weft.client.ReplyException;
import io.weft.server.api.ServerOptions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The chat's server side (ChatRooms) as clients see it, with Weft's Java client over both transports. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ChatRoomsTest {
    private ChatServer server;
    private JavaClients clients;
    private String url;

    @BeforeEach
    void start() throws Exception {
        server = ChatServer.start(ChatServer.Settings.of(0)
                .withOptions(ServerOptions.builder().maxInterval(1000).build()));
        clients = new JavaClients();
        url = server.baseUrl() + ChatServer.BAYEUX_PATH;
    }

    @AfterEach
    void stop() throws Exception {
        clients.close();
        server.close();
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void joiningTellsTheRoomAndChatCarriesTheNameTheServerKnows(String transport) throws Exception {
        BayeuxClient ann = clients.connect(url, transport);
        Inbox annHears = subscribe(ann, "/chat/lobby");
        Inbox annMembers = subscribe(ann, "/members/lobby");
        Map<String, Object> joined = join(ann, "lobby", "ann");
        assertEquals(List.of("ann"), joined.get("members"));

        BayeuxClient ben = clients.connect(url, transport);
        Inbox benHears = subscribe(ben, "/chat/lobby");
        assertEquals(List.of("ann", "ben"), join(ben, "lobby", "ben").get("members"));
        annHears.next("join", "ben");
        annMembers.next(data -> List.of("ann", "ben").equals(data.get("members")));

        // ben claims to be someone else: the server says who spoke
        await(p -> ben.publish("/chat/lobby", Map.of("text", "hi ann", "user", "the admin"), p));
        Map<String, Object> line = annHears.next(data -> "chat".equals(data.get("type")));
        assertEquals("ben", line.get("user"));
        assertEquals("hi ann", line.get("text"));
        benHears.next("chat", "ben");
        assertEquals(List.of("ann", "ben"), server.rooms().members("lobby"));
    }

    @Test
    void someoneNotInTheRoomCannotSpeakThere() throws Exception {
        BayeuxClient outsider = clients.connect(url, "websocket");
        ReplyException refused = assertThrows(ReplyException.class,
                () -> await(p -> outsider.publish("/chat/lobby", Map.of("text", "let me in"), p)));
        assertTrue(String.valueOf(refused.reply().get("error")).startsWith("404"), refused.reply().toString());
    }

    @Test
    void clientsCannotPublishMemberLists() throws Exception {
        BayeuxClient client = clients.connect(url, "long-polling");
        join(client, "lobby", "eve");
        ReplyException refused = assertThrows(ReplyException.class,
                () -> await(p -> client.publish("/members/lobby", Map.of("members", List.of("nobody")), p)));
        assertTrue(String.valueOf(refused.reply().get("error")).startsWith("403"), refused.reply().toString());
    }

    @Test
    void aBadRoomOrNameIsAnsweredWithAnError() throws Exception {
        BayeuxClient client = clients.connect(url, "websocket");
        assertTrue(join(client, "no/such room", "amy").containsKey("error"));
        assertTrue(join(client, "lobby", "   ").containsKey("error"));
        assertTrue(join(client, "lobby", "x".repeat(25)).containsKey("error"));
        assertEquals(List.of(), server.rooms().members("lobby"));
    }

    @Test
    void aSessionIsInAtMost32RoomsAtOnce() throws Exception {
        BayeuxClient client = clients.connect(url, "websocket");
        for (int i = 0; i < ChatRooms.MAX_ROOMS_PER_SESSION; i++) {
            join(client, "room" + i, "amy");
        }
        ReplyException refused = assertThrows(ReplyException.class, () -> join(client, "one-more", "amy"));
        assertTrue(String.valueOf(refused.reply().get("error")).startsWith("403"), refused.reply().toString());
        assertTrue(String.valueOf(refused.reply().get("error")).contains("too_many_rooms"), refused.reply().toString());
        assertEquals(List.of(), server.rooms().members("one-more"));
        assertEquals(List.of("amelia"), join(client, "room0", "amelia").get("members"), "a room it is in already");
        await(p -> client.publish(ChatRooms.LEAVE, Map.of("room", "room1"), p));
        assertEquals(List.of("amy"), join(client, "one-more", "amy").get("members"));
    }

    @Test
    void leavingAndDisconnectingTellTheRoom() throws Exception {
        BayeuxClient ann = clients.connect(url, "websocket");
        Inbox annHears = subscribe(ann, "/chat/java");
        join(ann, "java", "ann");
        BayeuxClient ben = clients.connect(url, "long-polling");
        join(ben, "java", "ben");
        annHears.next("join", "ben");

        await(p -> ben.publish(ChatRooms.LEAVE, Map.of("room", "java"), p));
        assertEquals("left", annHears.next("leave", "ben").get("reason"));
        assertEquals(List.of("ann"), server.rooms().members("java"));

        join(ben, "java", "ben");
        annHears.next("join", "ben");
        await(ben::disconnect);
        annHears.next("leave", "ben");
        assertEquals(List.of("ann"), server.rooms().members("java"));
    }

    @Test
    void aSessionThatGoesSilentTimesOutAndLeavesItsRooms() throws Exception {
        BayeuxClient ann = clients.connect(url, "websocket");
        Inbox annHears = subscribe(ann, "/chat/random");
        join(ann, "random", "ann");

        // a browser that joins, then vanishes without a word (its tab crashed, its network died)
        HttpClient browser = new HttpClient();
        browser.start();
        try {
            String handshake = post(browser, "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"long-polling\"],\"id\":\"1\"}]");
            String clientId = handshake.replaceAll("(?s).*\"clientId\":\"([^\"]+)\".*", "$1");
            post(browser, "[{\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId + "\",\"connectionType\":"
                    + "\"long-polling\",\"advice\":{\"timeout\":0},\"id\":\"2\"},{\"channel\":\"" + ChatRooms.JOIN
                    + "\",\"clientId\":\"" + clientId + "\",\"data\":{\"room\":\"random\",\"name\":\"ghost\"},"
                    + "\"id\":\"3\"}]");
        } finally {
            browser.stop();
        }
        annHears.next("join", "ghost");
        assertEquals("timed out", annHears.next("leave", "ghost").get("reason"));
        assertEquals(List.of("ann"), server.rooms().members("random"));
    }

    private String post(HttpClient http, String json) throws Exception {
        ContentResponse response = http.newRequest(url).method(HttpMethod.POST)
                .body(new StringRequestContent("application/json", json))
                .timeout(10, TimeUnit.SECONDS)
                .send();
        assertEquals(200, response.getStatus(), response.getContentAsString());
        return response.getContentAsString();
    }

    private static Inbox subscribe(BayeuxClient client, String channel) throws Exception {
        Inbox inbox = new Inbox();
        await(p -> client.subscribe(channel, inbox, p));
        return inbox;
    }

    private static Map<String, Object> join(BayeuxClient client, String room, String name) throws Exception {
        return await(p -> client.publish(ChatRooms.JOIN, Map.of("room", room, "name", name), p)).getDataAsMap();
    }
}
