package io.weft.examples.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.LocalSession;
import io.weft.server.api.ServerOptions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a node does with the other nodes' lists (ChatRooms' side of the roster), fed by hand, without Redis: a newer
 * list replaces an older one, a late older one only proves the node alive, an emptied list stays known until it
 * expires, and an expired list's users leave with a notice; the union is in the order of the node ids.
 */
class RosterListsTest {
    private BayeuxServer bayeux;
    private ChatRooms chat;
    private final BlockingQueue<Map<String, Object>> seen = new LinkedBlockingQueue<>();

    @BeforeEach
    void start() {
        bayeux = BayeuxServer.create(ServerOptions.defaults());
        chat = ChatRooms.install(bayeux);
        LocalSession watcher = bayeux.newLocalSession("watcher");
        watcher.handshake();
        LocalSession.MessageListener keep = (Message message) -> seen.add(message.getDataAsMap());
        watcher.subscribe("/members/lobby", keep);
        watcher.subscribe("/chat/lobby", keep);
    }

    @AfterEach
    void stop() {
        bayeux.close();
    }

    @Test
    void aLateOlderListNeverReplacesANewerOne() {
        chat.heard("b", "lobby", 5, List.of("ben"), 1000);
        assertEquals(List.of("ben"), chat.members("lobby"));
        assertEquals(List.of("ben"), seen.poll().get("members"));

        chat.heard("b", "lobby", 7, List.of("ben", "bea"), 1000);
        chat.heard("b", "lobby", 6, List.of("ben"), 2000); // a periodic list that crossed change 7
        assertEquals(List.of("ben", "bea"), chat.members("lobby"));
        assertEquals(List.of("ben", "bea"), seen.poll().get("members"));
        nothingBeforeMarker("nothing changed for this node's users");

        chat.heard("b", "lobby", 8, List.of(), 2000); // the last of b's users left
        chat.heard("b", "lobby", 7, List.of("ben", "bea"), 2000);
        assertEquals(List.of(), chat.members("lobby"), "the emptied list stays known, so the late one is ignored");
        assertEquals(List.of(), seen.poll().get("members"));
        nothingBeforeMarker("the late list changed nothing");
    }

    @Test
    void theUnionIsInTheOrderOfTheNodeIdsAndExpiredListsLeaveWithANotice() {
        chat.heard("ffff", "lobby", 1, List.of("zed"), 1000);
        chat.heard("0000", "lobby", 1, List.of("amy", "abe"), 2000);
        assertEquals(List.of("amy", "abe", "zed"), chat.members("lobby"));
        seen.clear();

        chat.expire(999);
        nothingBeforeMarker("nothing expired yet");
        chat.expire(1000);
        Map<String, Object> notice = seen.poll();
        assertEquals("leave", notice.get("type"));
        assertEquals("zed", notice.get("user"));
        assertEquals("node lost", notice.get("reason"));
        assertEquals(List.of("amy", "abe"), seen.poll().get("members"));
        assertEquals(List.of("amy", "abe"), chat.members("lobby"));

        chat.expire(2000);
        assertEquals(List.of(), chat.members("lobby"));
        assertEquals(List.of(), rooms());
    }

    /** What reached the watcher (synchronously, on this thread) before a marker line published now: nothing. */
    private void nothingBeforeMarker(String why) {
        bayeux.getChannel("/chat/lobby").publish(null, Map.of("type", "marker"));
        assertEquals(Map.of("type", "marker"), seen.poll(), why);
    }

    private List<?> rooms() {
        BlockingQueue<Object> reply = new LinkedBlockingQueue<>();
        LocalSession asker = bayeux.newLocalSession("asker");
        asker.handshake();
        asker.publish(ChatRooms.ROOMS, Map.of(), Promise.from(answer -> reply.add(answer.getData()), reply::add));
        return (List<?>) reply.poll();
    }
}
