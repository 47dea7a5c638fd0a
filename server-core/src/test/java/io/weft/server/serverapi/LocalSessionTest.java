package io.weft.server.serverapi;

import static io.weft.server.serverapi.ListenersTest.data;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.bayeux.ChannelId;
import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.LocalSession;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LocalSessionTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BayeuxServer server = BayeuxServer.create(ServerOptions.defaults(), scheduler);

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void aLocalSessionTalksWithRemoteClientsBothWays() {
        LocalSession bot = server.newLocalSession("bot");
        bot.handshake();
        assertTrue(bot.isConnected());
        assertTrue(bot.getServerSession().isLocal());
        List<Object> heard = new CopyOnWriteArrayList<>();
        bot.subscribe("/chat/*", message -> heard.add(message.getData()));

        ScriptedClient human = ScriptedClient.of(server, "h");
        human.handshake();
        human.subscribe("/chat/room");
        human.publishJson("/chat/room", "\"hello bot\"");
        assertEquals(List.of("hello bot"), heard);

        AtomicReference<Message> reply = new AtomicReference<>();
        bot.publish("/chat/room", "hello human", Promise.from(reply::set, x -> { }));
        assertTrue(reply.get().isSuccessful());
        assertEquals(List.of("hello human"), data(human.connectNow(), "/chat/room").subList(1, 2));
    }

    @Test
    void aLocalSessionNeverExpiresAndIsNotAskedThePolicy() {
        server.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canHandshake(BayeuxServer s, ServerSession session, Message handshake) {
                return false;
            }

            @Override
            public boolean canPublish(BayeuxServer s, ServerSession session, ChannelId channel, Message message) {
                return false;
            }
        });
        LocalSession service = server.newLocalSession("service");
        service.handshake();
        scheduler.advance(60_000);
        assertTrue(service.isConnected());
        AtomicReference<Message> reply = new AtomicReference<>();
        service.publish("/anything", 1, Promise.from(reply::set, x -> { }));
        assertTrue(reply.get().isSuccessful());
    }

    @Test
    void unsubscribeAndDisconnect() {
        LocalSession local = server.newLocalSession("l");
        local.handshake();
        List<Object> heard = new CopyOnWriteArrayList<>();
        local.subscribe("/t", message -> heard.add(message.getData()));
        local.publish("/t", 1);
        local.unsubscribe("/t");
        local.publish("/t", 2);
        assertEquals(List.of(1), heard);
        ServerSession session = local.getServerSession();
        assertNotNull(server.getSession(session.getId()));
        local.disconnect();
        assertFalse(local.isConnected());
        assertEquals(null, server.getSession(session.getId()));
    }
}
