package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.api.Service;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.longpoll.PollingServer.Mount;
import io.weft.transport.longpoll.PollingServer.Setup;
import io.weft.transport.longpoll.testing.Browser;
import io.weft.transport.longpoll.testing.HttpWire;
import io.weft.transport.longpoll.testing.Reply;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a hostile HTTP client can do to an exchange, over both adapters: trickle a body, declare one it never sends,
 * send too much or something the server cannot answer; each ends in a 4xx with a short, unsniffable reason or a
 * Bayeux error, in bounded time, never a 500.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HttpHardeningTest {
    @RegisterExtension
    static final SharedHttpClient HTTP = new SharedHttpClient();
    private PollingServer server;

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    /** The status line and what follows, as a raw client reads them, within {@code seconds}. */
    private static String answer(Socket socket, int seconds) throws Exception {
        socket.setSoTimeout(seconds * 1000);
        InputStream in = socket.getInputStream();
        StringBuilder text = new StringBuilder();
        byte[] buffer = new byte[4096];
        int read;
        try {
            while ((read = in.read(buffer)) > 0) {
                text.append(new String(buffer, 0, read, StandardCharsets.ISO_8859_1));
                if (text.indexOf("\r\n\r\n") > 0) {
                    break;
                }
            }
        } catch (java.net.SocketTimeoutException x) {
            throw new AssertionError("no answer within " + seconds + " s; read: " + text);
        }
        return text.toString();
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void aBodyThatTricklesInIsAnswered408AtItsDeadline(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.builder().timeout(1000).build(), new Setup(500L, 500L, null));
        try (Socket socket = new Socket("127.0.0.1", server.uri().getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /cometd HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 60000\r\n\r\n[{\"chan").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            String answer = answer(socket, 10);
            assertTrue(answer.startsWith("HTTP/1.1 408"), answer);
        }
        othersCarryOn();
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void aReplyTheServerCannotEncodeIsAnsweredWithABayeuxError(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        server.bayeux().addService("/service/balance", Service.of((from, request) -> new Unwritable()));
        Browser browser = new Browser(HTTP.client(), server.uri());
        ScriptedClient client = HttpWire.client(browser);
        client.handshake();
        Reply reply = browser.send(browser.post(Json.write(List.of(client.message("/service/balance", "data", 1)))));
        assertEquals(200, reply.status());
        Map<String, Object> message = reply.message();
        assertEquals("/service/balance", message.get("channel"));
        assertEquals(false, message.get("successful"));
        assertEquals("500::server_error", message.get("error"));
        assertTrue(!reply.body().contains("Billing"), reply.body());
    }

    /** An answer whose encoding throws an Error. */
    public static final class Unwritable {
        public String getBalance() {
            throw new AssertionError("at com.example.internal.Billing.charge(Billing.java:42)");
        }
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void refusalsAreShortCleanAndUnsniffable(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.defaults());
        Browser browser = new Browser(HTTP.client(), server.uri());
        Reply reply = browser.send(browser.post("\u0001<script>" + "x".repeat(5_000)));
        assertEquals(400, reply.status());
        assertEquals("nosniff", reply.headers().get("X-Content-Type-Options"));
        assertTrue(reply.body().length() < 300, reply.body().length() + " characters");
        assertTrue(reply.body().chars().noneMatch(c -> c < 32 && c != '\n'), reply.body());
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void oversizedBodiesAndBatchesAre413AndCounted(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.builder().maxMessagesPerBatch(10).build());
        Browser browser = new Browser(HTTP.client(), server.uri());
        Reply tooMany = browser.send(browser.post("[" + "{},".repeat(10) + "{}]"));
        assertEquals(413, tooMany.status(), tooMany.body());
        assertTrue(tooMany.body().contains("maxMessagesPerBatch"), tooMany.body());
        Reply tooLarge = browser.send(browser.post("[\"" + "x".repeat(70_000) + "\"]"));
        assertEquals(413, tooLarge.status());
        Reply tooDeep = browser.send(browser.post("[".repeat(100) + "]".repeat(100)));
        assertEquals(413, tooDeep.status());
        Map<Limit, Long> refusals = server.bayeux().getRefusals();
        assertEquals(1, refusals.get(Limit.MESSAGES_PER_BATCH));
        assertEquals(1, refusals.get(Limit.MESSAGE_SIZE));
        assertEquals(1, refusals.get(Limit.JSON_DEPTH));
    }

    @ParameterizedTest
    @EnumSource(Mount.class)
    void sessionsAreCountedByTheClientsAddress(Mount mount) throws Exception {
        server = PollingServer.start(mount, ServerOptions.builder().maxSessionsPerAddress(2).build());
        for (int i = 0; i < 2; i++) {
            Browser browser = new Browser(HTTP.client(), server.uri());
            assertEquals(true, browser.send(browser.post(Browser.HANDSHAKE)).message().get("successful"));
        }
        Browser third = new Browser(HTTP.client(), server.uri());
        assertEquals("429:maxSessionsPerAddress:limit_exceeded",
                third.send(third.post(Browser.HANDSHAKE)).message().get("error"));
    }

    private void othersCarryOn() throws Exception {
        ScriptedClient client = HttpWire.client(new Browser(HTTP.client(), server.uri()));
        assertEquals(true, client.handshake().get("successful"));
    }
}
