package io.weft.transport.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.testing.Await;
import io.weft.server.testing.Inbox;
import io.weft.server.testing.Json;
import io.weft.server.testing.ScriptedClient;
import io.weft.transport.netty.testing.NettyLeaks;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code BayeuxServer.drain} on every engine (embedded Jetty, the Servlet mount on Jetty and in Tomcat, Netty): a
 * drained client's held {@code /meta/connect} is answered {@code 503::server_draining} with advice
 * {@code reconnect: handshake}, then its connection goes: a websocket closed with 1001, a long-poll answered with
 * {@code Connection: close} and the connection closed by the server, so that the client's next one goes through its
 * load balancer again. A handshake while draining is refused the same way.
 */
@Timeout(60)
class DrainTest {
    @RegisterExtension
    static final Clients clients = new Clients();
    @RegisterExtension
    static final NettyLeaks leaks = new NettyLeaks();

    private BayeuxHost server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    static Stream<Arguments> engines() {
        return Stream.of(Container.values()).map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void aDrainedWebSocketIsAnsweredThenClosedWith1001(Container container) throws Exception {
        server = container.start();
        RawSocket socket = RawSocket.connect(clients.webSocket(), server.wsUri());
        ScriptedClient client = new ScriptedClient(socket);
        assertEquals(true, client.handshake().get("successful"));
        socket.send(Json.write(List.of(client.message("/meta/connect", "connectionType", "websocket"))));
        awaitHeld(server);

        server.bayeux().drain(Duration.ofMillis(300));
        Map<String, Object> reply = client.inbox().take(Inbox.channel("/meta/connect"), 10, "the drained connect");
        assertDrained(reply);
        RawSocket.Closed closed = socket.awaitClose(10);
        assertEquals(1001, closed.code(), "going away: " + closed);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void aDrainedLongPollIsAnsweredWithConnectionCloseAndTheConnectionCloses(Container container) throws Exception {
        server = container.start();
        try (RawPoll poll = new RawPoll(server.httpUri())) {
            Map<String, Object> handshake = poll.exchange(Map.of("channel", "/meta/handshake", "version", "1.0",
                    "supportedConnectionTypes", List.of("long-polling"))).message();
            assertEquals(true, handshake.get("successful"), handshake.toString());
            String clientId = (String) handshake.get("clientId");
            Map<String, Object> first = poll.exchange(Map.of("channel", "/meta/connect", "clientId", clientId,
                    "connectionType", "long-polling", "advice", Map.of("timeout", 0))).message();
            assertEquals(true, first.get("successful"), first.toString());

            poll.send(Map.of("channel", "/meta/connect", "clientId", clientId, "connectionType", "long-polling"));
            awaitHeld(server);
            server.bayeux().drain(Duration.ofMillis(300));
            RawPoll.Response drained = poll.read();
            assertEquals(200, drained.status());
            assertClose(drained);
            assertDrained(drained.message());
            assertTrue(poll.closedByServer(), "the server closed the connection behind the response");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void aHandshakeWhileDrainingIsRefusedAndItsConnectionGoes(Container container) throws Exception {
        server = container.start();
        server.bayeux().drain(Duration.ofMinutes(1));
        try (RawPoll poll = new RawPoll(server.httpUri())) {
            RawPoll.Response refused = poll.exchange(Map.of("channel", "/meta/handshake", "version", "1.0",
                    "supportedConnectionTypes", List.of("long-polling")));
            Map<String, Object> reply = refused.message();
            assertEquals(false, reply.get("successful"));
            assertEquals("503::server_draining", reply.get("error"));
            assertEquals("handshake", ((Map<?, ?>) reply.get("advice")).get("reconnect"));
            assertClose(refused);
            assertTrue(poll.closedByServer());
        }
        RawSocket socket = RawSocket.connect(clients.webSocket(), server.wsUri());
        ScriptedClient client = new ScriptedClient(socket);
        assertEquals("503::server_draining", client.handshake().get("error"));
        assertEquals(1001, socket.awaitClose(10).code());
    }

    private static void awaitHeld(BayeuxHost server) throws InterruptedException {
        Await.until(Duration.ofSeconds(10),
                () -> server.bayeux().getStats().heldConnects() == 1, "the connect is held");
    }

    private static void assertClose(RawPoll.Response response) {
        String connection = response.header("connection");
        assertTrue(connection != null && connection.toLowerCase(Locale.ROOT).contains("close"),
                "the response asks the client to open its next connection elsewhere: " + response.headers());
    }

    private static void assertDrained(Map<String, Object> reply) {
        assertEquals(false, reply.get("successful"), reply.toString());
        assertEquals("503::server_draining", reply.get("error"));
        assertEquals("handshake", ((Map<?, ?>) reply.get("advice")).get("reconnect"));
    }

    /**
     * HTTP/1.1 on one plain socket, so that the test sees what HttpClient hides: the {@code Connection} header of each
     * response and whether the server closed the connection behind it. Bodies are JSON batches with a
     * {@code Content-Length} or chunked.
     */
    private static final class RawPoll implements AutoCloseable {
        private final Socket socket = new Socket();
        private final URI uri;
        private final InputStream in;
        private final OutputStream out;
        private String cookie;

        RawPoll(URI uri) throws IOException {
            this.uri = uri;
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 5_000);
            socket.setSoTimeout(10_000);
            in = socket.getInputStream();
            out = socket.getOutputStream();
        }

        record Response(int status, Map<String, String> headers, String body) {
            String header(String name) {
                return headers.get(name.toLowerCase(Locale.ROOT));
            }

            Map<String, Object> message() {
                List<Map<String, Object>> messages = Json.array(body);
                assertEquals(1, messages.size(), body);
                return messages.get(0);
            }
        }

        Response exchange(Map<String, Object> message) throws IOException {
            send(message);
            return read();
        }

        void send(Map<String, Object> message) throws IOException {
            byte[] body = Json.write(List.of(message)).getBytes(StandardCharsets.UTF_8);
            String head = "POST " + uri.getPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                    + "\r\nContent-Type: application/json;charset=UTF-8\r\nContent-Length: " + body.length + "\r\n"
                    + (cookie == null ? "" : "Cookie: " + cookie + "\r\n") + "\r\n";
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.write(head.getBytes(StandardCharsets.US_ASCII));
            request.write(body);
            out.write(request.toByteArray());
            out.flush();
        }

        Response read() throws IOException {
            String status = line();
            Map<String, String> headers = new LinkedHashMap<>();
            for (String line = line(); !line.isEmpty(); line = line()) {
                int colon = line.indexOf(':');
                String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = line.substring(colon + 1).trim();
                headers.merge(name, value, (a, b) -> a + ", " + b);
                if (name.equals("set-cookie") && value.startsWith("BAYEUX_BROWSER=")) {
                    cookie = value.substring(0, value.indexOf(';') < 0 ? value.length() : value.indexOf(';'));
                }
            }
            String body;
            if (headers.containsKey("content-length")) {
                body = new String(in.readNBytes(Integer.parseInt(headers.get("content-length"))), StandardCharsets.UTF_8);
            } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                ByteArrayOutputStream chunks = new ByteArrayOutputStream();
                for (int size = Integer.parseInt(line().split(";")[0].trim(), 16); size > 0;
                        size = Integer.parseInt(line().split(";")[0].trim(), 16)) {
                    chunks.write(in.readNBytes(size));
                    line();
                }
                for (String trailer = line(); !trailer.isEmpty(); trailer = line()) {
                    // trailers: none expected
                }
                body = chunks.toString(StandardCharsets.UTF_8);
            } else {
                throw new AssertionError("a response without a length: " + headers);
            }
            return new Response(Integer.parseInt(status.split(" ")[1]), headers, body);
        }

        /** Whether the server closes the connection (end of stream, nothing more sent) within the socket's timeout. */
        boolean closedByServer() throws IOException {
            try {
                return in.read() < 0;
            } catch (SocketException reset) {
                return true;
            }
        }

        private String line() throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int c;
            while ((c = in.read()) >= 0 && c != '\n') {
                if (c != '\r') {
                    line.write(c);
                }
            }
            if (c < 0 && line.size() == 0) {
                throw new IOException("the server closed the connection");
            }
            return line.toString(StandardCharsets.US_ASCII);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
