package io.weft.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.weft.bayeux.Message;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.Limit;
import io.weft.server.api.SecurityPolicy;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.ServerSession;
import io.weft.server.spi.InMemoryTransport;
import io.weft.server.testing.ManualScheduler;
import io.weft.server.testing.ScriptedClient;
import java.net.InetAddress;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Live sessions are bounded per browser, per remote address and in all; places come back when sessions end. */
class SessionBoundsTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServer server;

    @AfterEach
    void close() {
        server.close();
    }

    private ScriptedClient client(InMemoryTransport transport, String browser) {
        return new ScriptedClient(transport, browser);
    }

    private static InetAddress address(String literal) throws Exception {
        return InetAddress.getByName(literal);
    }

    @Test
    void oneBrowserCookieHoldsAtMostMaxLiveSessionsPerBrowser() {
        server = BayeuxServer.create(ServerOptions.builder().maxLiveSessionsPerBrowser(3).build(), scheduler);
        InMemoryTransport polling = InMemoryTransport.polling(server);
        for (int i = 0; i < 3; i++) {
            assertEquals(true, client(polling, "same").handshake().get("successful"));
        }
        Map<String, Object> refused = client(polling, "same").handshake();
        assertEquals("429:maxLiveSessionsPerBrowser:limit_exceeded", refused.get("error"));
        assertEquals("handshake", ((Map<?, ?>) refused.get("advice")).get("reconnect"),
                "told to try again later, not to stop for good");
        assertEquals(true, client(polling, "other").handshake().get("successful"));
        assertEquals(1, server.getRefusals().get(Limit.SESSIONS_PER_BROWSER));
    }

    @Test
    void oneAddressHoldsAtMostMaxSessionsPerAddressAndIpv6CountsBySlash64() throws Exception {
        server = BayeuxServer.create(ServerOptions.builder().maxSessionsPerAddress(2).build(), scheduler);
        InMemoryTransport v4 = InMemoryTransport.polling(server).from(address("192.0.2.7"));
        assertEquals(true, client(v4, null).handshake().get("successful"));
        assertEquals(true, client(v4, null).handshake().get("successful"));
        assertEquals("429:maxSessionsPerAddress:limit_exceeded", client(v4, null).handshake().get("error"));
        InMemoryTransport elsewhere = InMemoryTransport.polling(server).from(address("192.0.2.8"));
        assertEquals(true, client(elsewhere, null).handshake().get("successful"));

        InMemoryTransport first = InMemoryTransport.polling(server).from(address("2001:db8:1:2::1"));
        InMemoryTransport sameSlash64 = InMemoryTransport.polling(server).from(address("2001:db8:1:2:ffff::9"));
        InMemoryTransport otherSlash64 = InMemoryTransport.polling(server).from(address("2001:db8:1:3::1"));
        assertEquals(true, client(first, null).handshake().get("successful"));
        assertEquals(true, client(sameSlash64, null).handshake().get("successful"));
        assertEquals("429:maxSessionsPerAddress:limit_exceeded", client(sameSlash64, null).handshake().get("error"));
        assertEquals(true, client(otherSlash64, null).handshake().get("successful"));
        assertEquals(2, server.getRefusals().get(Limit.SESSIONS_PER_ADDRESS));
    }

    @Test
    void theServerHoldsAtMostMaxSessionsAndLocalSessionsAreNotCounted() {
        server = BayeuxServer.create(ServerOptions.builder().maxSessions(2).build(), scheduler);
        server.newLocalSession("service").handshake();
        InMemoryTransport polling = InMemoryTransport.polling(server);
        assertEquals(true, client(polling, "a").handshake().get("successful"));
        assertEquals(true, client(polling, "b").handshake().get("successful"));
        assertEquals("429:maxSessions:limit_exceeded", client(polling, "c").handshake().get("error"));
        assertEquals(1, server.getRefusals().get(Limit.SESSIONS));
    }

    @Test
    void endedAndDeniedSessionsGiveTheirPlacesBack() throws Exception {
        server = BayeuxServer.create(ServerOptions.builder().maxSessionsPerAddress(1).maxSessions(1)
                .maxLiveSessionsPerBrowser(1).build(), scheduler);
        InetAddress from = address("198.51.100.1");
        InMemoryTransport polling = InMemoryTransport.polling(server).from(from);
        ScriptedClient first = client(polling, "b");
        first.handshake();
        first.disconnect();
        ScriptedClient second = client(polling, "b");
        assertEquals(true, second.handshake().get("successful"), "a disconnect gives the places back");
        second.connectNow();
        scheduler.advance(ServerOptions.defaults().maxInterval() + 1);
        assertEquals(0, server.getSessions().size(), "expired");

        server.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canHandshake(BayeuxServer bayeux, ServerSession session, Message handshake) {
                return false;
            }
        });
        assertEquals("403::handshake_denied", client(polling, "b").handshake().get("error"));
        server.setSecurityPolicy(SecurityPolicy.DEFAULT);
        ScriptedClient third = client(polling, "b");
        assertNotNull(third.handshake().get("clientId"), "an expiry and a denial give them back too");
        third.disconnect();
        assertNotNull(client(polling, "c").handshake().get("clientId"),
                "the address's one place is free again: the denial did not keep one");
    }
}
