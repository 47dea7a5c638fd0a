package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Await;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.longpoll.PollingServer.Mount;
import io.weft.transport.longpoll.testing.Browser;
import io.weft.transport.longpoll.testing.HttpWire;
import io.weft.transport.longpoll.testing.Reply;
import java.net.HttpCookie;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What a parked poll does to its connection and to the server's threads. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ConnectionTest {
    @RegisterExtension
    static final SharedHttpClient HTTP = new SharedHttpClient();
    private PollingServer server;

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    /** The Handler lifts the idle timeout itself; Jetty's servlet container ignores it while a request is suspended. */
    @ParameterizedTest
    @EnumSource(Mount.class)
    void heldConnectOutlivesAnIdleTimeoutShorterThanTheHold(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.builder().timeout(1500).build(), 300);
        ScriptedClient client = HttpWire.client(new Browser(HTTP.client(), server.uri()));
        client.handshake();
        client.connectNow();

        List<Map<String, Object>> reply = ScriptedClient.await(client.heldConnect()); // fails on any status but 200

        assertEquals(1, reply.size(), reply.toString());
        assertEquals(true, reply.get(0).get("successful"), "answered by the engine's timeout, not cut by Jetty");
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void requestPipelinedBehindAParkedPollIsServedAfterIt(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.builder().timeout(2500).build());
        try (RawHttp connection = new RawHttp(server.uri())) {
            connection.post(Browser.HANDSHAKE, null);
            String[] handshake = connection.read();
            String cookie = cookie(handshake[1]);
            String clientId = (String) Json.array(handshake[2]).get(0).get("clientId");
            String connect = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\""
                    + clientId + "\"}]";

            Await.until(Duration.ofSeconds(5), () -> server.requestsActive(), n -> n == 0, "the handshake is done");
            connection.post(connect, cookie);
            Await.until(Duration.ofSeconds(5), () -> server.waitingRequests(), n -> n == 1, "the connect is parked");
            // Jetty does not read while the connect is parked: this one waits in the socket for the watch to find.
            connection.post(Browser.HANDSHAKE, cookie);

            String[] first = connection.read();
            String[] second = connection.read();
            assertEquals("HTTP/1.1 200 OK", first[0]);
            assertEquals("/meta/connect", Json.array(first[2]).get(0).get("channel"));
            assertEquals("HTTP/1.1 200 OK", second[0]);
            Map<String, Object> reply = Json.array(second[2]).get(0);
            assertEquals("/meta/handshake", reply.get("channel"));
            assertEquals(true, reply.get("successful"));
        }
    }

    private static String cookie(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase().startsWith("set-cookie:")) {
                return HttpCookie.parse(line).get(0).getValue();
            }
        }
        throw new AssertionError("no Set-Cookie in " + head);
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void headersLargerThanTheRecommendedInputBufferStillPass(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        assertEquals(4096, PollingServer.httpConfiguration().getInputBufferSize());
        Browser browser = new Browser(HTTP.client(), server.uri());
        String padding = "x".repeat(6000);

        Reply reply = browser.send(browser.post(Browser.HANDSHAKE).headers(h -> h.put("X-Padding", padding)));

        assertEquals(true, reply.message().get("successful"));
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void parkedPollsHoldNoThread(Mount mount) throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool(12, 4);
        server = PollingServer.start(mount, ServerOptions.defaults(), 30_000, threads);
        int parked = 40;
        List<ScriptedClient> clients = new ArrayList<>();
        List<CompletableFuture<String>> polls = new ArrayList<>();
        for (int i = 0; i < parked; i++) {
            ScriptedClient client = HttpWire.client(new Browser(HTTP.client(), server.uri()));
            client.handshake();
            client.connectNow();
            clients.add(client);
            polls.add(client.heldConnect());
        }
        Await.until(Duration.ofSeconds(10), () -> server.waitingRequests() == parked, parked + " polls parked");

        ScriptedClient latecomer = HttpWire.client(new Browser(HTTP.client(), server.uri()));
        assertEquals(true, latecomer.handshake().get("successful"),
                parked + " parked polls on " + threads.getMaxThreads() + " threads");
        assertTrue(polls.stream().noneMatch(CompletableFuture::isDone));

        for (ScriptedClient client : clients) {
            server.bayeux().getSession(client.clientId()).disconnect();
        }
        for (CompletableFuture<String> poll : polls) {
            poll.get(10, TimeUnit.SECONDS); // answered with status 200: the wire fails on any other
        }
    }
}
