package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Await;
import io.weft.server.testing.Json;
import io.weft.transport.longpoll.PollingServer.Mount;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the embedded Jetty mount bounds before a request reaches the engine: a request head trickled in a byte at a
 * time is cut at {@code requestHeadTimeout} (Jetty's idle timeout restarts with every byte), and one address opens at
 * most {@code maxConnectionsPerAddress} connections, while requests that have arrived, idle keep-alive connections and
 * other addresses carry on.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ConnectionGuardTest {
    private static final String HANDSHAKE_HEAD_START = "POST /cometd HTTP/1.1\r\nHost: 127.0.0.1\r\n";

    private PollingServer server;
    private final List<RawHttp> sockets = new ArrayList<>();
    private final ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() throws Exception {
        writer.shutdownNow();
        for (RawHttp socket : sockets) {
            socket.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private RawHttp open(InetAddress from) throws IOException {
        RawHttp socket = new RawHttp(server.uri(), from, "");
        sockets.add(socket);
        return socket;
    }

    private static Map<String, Object> handshake(RawHttp http) throws IOException {
        http.post(io.weft.transport.longpoll.testing.Browser.HANDSHAKE, null);
        String[] response = http.read();
        assertEquals("HTTP/1.1 200 OK", response[0], response[1]);
        return Json.array(response[2]).get(0);
    }

    /** Sends the start of a head, then one more byte every 50 ms, until the connection fails or the test ends. */
    private ScheduledFuture<?> trickle(RawHttp http) throws IOException {
        http.write(HANDSHAKE_HEAD_START);
        return writer.scheduleAtFixedRate(() -> {
            try {
                http.write("X");
            } catch (IOException gone) {
                throw new IllegalStateException("closed", gone); // ends the repetition
            }
        }, 50, 50, TimeUnit.MILLISECONDS);
    }

    /** The server answered a trickled head with 408 and closed the connection. */
    private static void assertCut(RawHttp http) throws IOException {
        String[] answer = http.read();
        assertEquals("HTTP/1.1 408 Request Timeout", answer[0], answer[1]);
        http.awaitClosedByServer();
    }

    @Test
    void aHeadTrickledInByteByByteIsCutAtItsDeadlineAndCounted() throws Exception {
        server = PollingServer.start(Mount.HANDLER, ServerOptions.builder().requestHeadTimeout(500).build());
        RawHttp slowloris = open(null);
        long start = System.nanoTime();
        ScheduledFuture<?> bytes = trickle(slowloris);
        assertCut(slowloris);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        bytes.cancel(false);
        assertTrue(millis >= 500 && millis < 5_000, "closed after " + millis + " ms");
        assertEquals(1, server.bayeux().getRefusals().get(Limit.REQUEST_HEAD));
        assertEquals(true, handshake(open(null)).get("successful"), "others carry on");
    }

    @Test
    void aHeldConnectAndAnIdleKeepAliveConnectionOutliveTheHeadDeadline() throws Exception {
        server = PollingServer.start(Mount.HANDLER, ServerOptions.builder().requestHeadTimeout(300).timeout(1500)
                .build());
        RawHttp client = open(null);
        Map<String, Object> handshake = handshake(client);
        String clientId = (String) handshake.get("clientId");
        RawHttp idle = open(null);
        assertEquals(true, handshake(idle).get("successful"));

        // A /meta/connect held 1.5 s, five times the head deadline: its head arrived, so it is the handler's.
        client.post("[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + clientId
                + "\",\"advice\":{\"timeout\":0}}]", null);
        client.read();
        long start = System.nanoTime();
        client.post("[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + clientId
                + "\"}]", null);
        String[] held = client.read();
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) >= 1000, "the connect was held");
        assertEquals(true, Json.array(held[2]).get(0).get("successful"), held[2]);

        // The marker: a trickled head on another connection has been cut, so the sweeps ran well past the deadline.
        RawHttp slowloris = open(null);
        trickle(slowloris);
        assertCut(slowloris);
        assertEquals(true, handshake(idle).get("successful"), "the idle keep-alive connection was left alone");
        assertEquals(1, server.bayeux().getRefusals().get(Limit.REQUEST_HEAD));
    }

    @Test
    void oneAddressOpensAtMostMaxConnectionsPerAddressAndAnotherIsServed() throws Exception {
        server = PollingServer.start(Mount.HANDLER, ServerOptions.builder().maxConnectionsPerAddress(3).build());
        InetAddress here = InetAddress.getByName("127.0.0.1");
        InetAddress elsewhere = InetAddress.getByName("127.0.0.2");
        List<RawHttp> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(open(here));
        }
        Await.until(Duration.ofSeconds(5), () -> server.guard().connectionsFrom(here) == 3, "three counted");
        RawHttp fourth = open(here);
        fourth.awaitClosedByServer();
        assertEquals(1, server.bayeux().getRefusals().get(Limit.CONNECTIONS_PER_ADDRESS));
        assertEquals(true, handshake(open(elsewhere)).get("successful"), "another address has its own bound");

        held.get(0).close();
        Await.until(Duration.ofSeconds(5), () -> server.guard().connectionsFrom(here) == 2, "a closed one given back");
        assertEquals(true, handshake(open(here)).get("successful"));
        assertEquals(true, handshake(held.get(1)).get("successful"), "the ones within the bound are served");
    }

    @Test
    void aTrustedProxysConnectionsAreNotCounted() throws Exception {
        server = PollingServer.start(Mount.HANDLER, ServerOptions.builder().maxConnectionsPerAddress(1).build());
        LongPollingConnectors.trustProxies(server.jetty(), "127.0.0.1");
        List<RawHttp> viaProxy = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            viaProxy.add(open(null));
        }
        for (RawHttp connection : viaProxy) {
            assertEquals(true, handshake(connection).get("successful"), "the proxy carries many clients");
        }
        assertEquals(0, server.bayeux().getRefusals().get(Limit.CONNECTIONS_PER_ADDRESS));
        RawHttp elsewhere = open(InetAddress.getByName("127.0.0.2"));
        assertEquals(true, handshake(elsewhere).get("successful"));
        open(InetAddress.getByName("127.0.0.2")).awaitClosedByServer();
        assertEquals(1, server.bayeux().getRefusals().get(Limit.CONNECTIONS_PER_ADDRESS), "others are counted");
    }

    @Test
    void theServletMountInstallsNoGuard() throws Exception {
        server = PollingServer.start(Mount.SERVLET, ServerOptions.defaults());
        assertNull(server.guard(), "a Servlet container's connectors are the container's to bound");
    }
}
