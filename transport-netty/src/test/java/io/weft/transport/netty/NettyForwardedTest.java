package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ClientRequest;
import io.weft.server.api.Limit;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Json;
import io.weft.transport.netty.testing.NettyLeaks;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Netty mount behind a reverse proxy ({@link WeftNetty.Builder#trustProxies}), as transport-longpoll's
 * {@code ForwardedTest} checks the Jetty mount: where the mount trusts the proxy, the address a session sees, the
 * per-address bounds, the origin check and the cookie's Secure flag use what the proxy forwarded, over long-polling and
 * websocket alike; where it does not (another address trusted), forwarded headers change nothing; a forwarded value
 * that is garbage is as if it were not there. The tests' connections come from 127.0.0.1, the proxy's address here.
 */
@Timeout(30)
class NettyForwardedTest {
    @RegisterExtension
    static final NettyLeaks leaks = new NettyLeaks();
    private static final String PUBLIC_HOST = "chat.example.com";
    private static final String PUBLIC_ORIGIN = "https://" + PUBLIC_HOST;
    private static final String HANDSHAKE = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
            + "\"supportedConnectionTypes\":[\"websocket\",\"long-polling\"]}]";
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private BayeuxServer bayeux;
    private WeftNetty netty;

    /** Starts a mount on 127.0.0.1 that trusts the proxies named (none: no trust at all). */
    private void start(ServerOptions options, String... trustedProxies) throws Exception {
        bayeux = BayeuxServer.create(options);
        WeftNetty.Builder builder = WeftNetty.on(bayeux).host("127.0.0.1").port(0);
        if (trustedProxies.length > 0) {
            builder.trustProxies(List.of(trustedProxies));
        }
        netty = builder.start();
    }

    @AfterEach
    void stop() {
        if (netty != null) {
            netty.close();
        }
        if (bayeux != null) {
            bayeux.close();
        }
    }

    private HttpResponse<String> handshake(Map<String, String> headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + netty.port()
                + "/cometd")).timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json");
        headers.forEach(request::header);
        return HTTP.send(request.POST(HttpRequest.BodyPublishers.ofString(HANDSHAKE)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A browser's handshake as a proxy passes it on: the public origin, and where the client really is. */
    private HttpResponse<String> handshakeThroughProxy(String forwardedFor) throws Exception {
        return handshake(Map.of("Origin", PUBLIC_ORIGIN, "X-Forwarded-Proto", "https", "X-Forwarded-Host", PUBLIC_HOST,
                "X-Forwarded-For", forwardedFor));
    }

    private static Map<String, Object> reply(HttpResponse<String> response) {
        assertEquals(200, response.statusCode(), response.body());
        return Json.array(response.body()).get(0);
    }

    private static boolean successful(HttpResponse<String> response) {
        return response.statusCode() == 200 && Boolean.TRUE.equals(reply(response).get("successful"));
    }

    private static boolean refusedAsTooManyFromOneAddress(HttpResponse<String> response) {
        Map<String, Object> reply = reply(response);
        return Boolean.FALSE.equals(reply.get("successful"))
                && String.valueOf(reply.get("error")).contains("maxSessionsPerAddress");
    }

    /** The client address the session the handshake created sees. */
    private String sessionAddress(HttpResponse<String> handshake) {
        return addressOf((String) reply(handshake).get("clientId"));
    }

    private String addressOf(String clientId) {
        ClientRequest request = bayeux.getSession(clientId).getRequest();
        return request.getRemoteAddress().getAddress().getHostAddress();
    }

    private static String cookie(HttpResponse<String> response) {
        return response.headers().firstValue("Set-Cookie").orElse("");
    }

    @Test
    void aTrustedProxysForwardedClientIsTheAddressTheSessionSees() throws Exception {
        start(ServerOptions.defaults(), "127.0.0.1");

        HttpResponse<String> handshake = handshakeThroughProxy("192.0.2.50, 203.0.113.7");

        assertTrue(successful(handshake), handshake.body());
        assertEquals("203.0.113.7", sessionAddress(handshake), "the rightmost address: the one the proxy saw");
        ClientRequest request = bayeux.getSession((String) reply(handshake).get("clientId")).getRequest();
        assertTrue(request.isSecure(), "the client reached the proxy over HTTPS");
        assertEquals("192.0.2.50, 203.0.113.7", request.getHeader("X-Forwarded-For"), "the headers as they came");
    }

    @Test
    void eachForwardedClientIsBoundedUnderItsOwnAddress() throws Exception {
        start(ServerOptions.builder().maxSessionsPerAddress(2).build(), "127.0.0.1");

        for (int i = 0; i < 2; i++) {
            assertTrue(successful(handshakeThroughProxy("203.0.113.7")));
            assertTrue(successful(handshakeThroughProxy("198.51.100.9")),
                    "another client behind the same proxy is not counted against the first");
        }
        HttpResponse<String> third = handshakeThroughProxy("203.0.113.7");

        assertTrue(refusedAsTooManyFromOneAddress(third), third.body());
        assertEquals(4, bayeux.getSessions().size());
    }

    @Test
    void aClientCannotPickItsAddressThroughAProxyThatAppends() throws Exception {
        start(ServerOptions.builder().maxSessionsPerAddress(1).build(), "127.0.0.0/8");

        // nginx's $proxy_add_x_forwarded_for: what the client sent, then the address the proxy saw
        assertTrue(successful(handshakeThroughProxy("192.0.2.50, 203.0.113.7")));
        HttpResponse<String> second = handshakeThroughProxy("192.0.2.51, 203.0.113.7");
        assertTrue(refusedAsTooManyFromOneAddress(second), "the same client, claiming another address: "
                + second.body());
        // two trusted proxies in a row (127.0.0.5, then this test's 127.0.0.1): the client is before them
        assertTrue(successful(handshakeThroughProxy("192.0.2.50, 203.0.113.8, 127.0.0.5")));
        assertTrue(refusedAsTooManyFromOneAddress(handshakeThroughProxy("203.0.113.8, 127.0.0.5")));
    }

    @Test
    void forwardedHttpsMakesTheCookieSecureAndThePublicOriginThisServersOwn() throws Exception {
        start(ServerOptions.defaults(), "127.0.0.1");

        HttpResponse<String> handshake = handshakeThroughProxy("203.0.113.7");

        assertTrue(successful(handshake), handshake.body());
        assertTrue(cookie(handshake).contains("; Secure"), "the browser reached us over HTTPS: " + cookie(handshake));
        HttpResponse<String> plain = handshake(Map.of("X-Forwarded-For", "203.0.113.7"));
        assertTrue(successful(plain));
        assertFalse(cookie(plain).contains("Secure"), "no HTTPS forwarded, none on the connection: " + cookie(plain));
    }

    @Test
    void theForwardedHostKeepsThePublicPort() throws Exception {
        start(ServerOptions.defaults(), "127.0.0.1");
        String origin = PUBLIC_ORIGIN + ":8443";
        Map<String, String> headers = new LinkedHashMap<>(Map.of("Origin", origin, "X-Forwarded-Proto", "https",
                "X-Forwarded-For", "203.0.113.7"));

        headers.put("X-Forwarded-Host", PUBLIC_HOST + ":8443"); // nginx: $http_host
        assertTrue(successful(handshake(headers)));
        headers.put("X-Forwarded-Host", PUBLIC_HOST);
        headers.put("X-Forwarded-Port", "8443"); // nginx: $server_port
        assertTrue(successful(handshake(headers)));
        headers.remove("X-Forwarded-Port"); // nginx: $host alone drops the port, and the page's origin is refused
        assertEquals(403, handshake(headers).statusCode());
    }

    @Test
    void eachRequestOnAProxysConnectionIsReadForItself() throws Exception {
        start(ServerOptions.defaults(), "127.0.0.1");
        // One keep-alive connection from the proxy carries many clients' requests, each with its own forwarded values.
        try (Socket proxy = connect()) {
            assertTrue(handshakeOn(proxy, "Origin: https://a.example\r\nX-Forwarded-Host: a.example\r\n"
                    + "X-Forwarded-Proto: https\r\n").startsWith("HTTP/1.1 200"));
            assertTrue(handshakeOn(proxy, "Origin: https://b.example\r\nX-Forwarded-Host: b.example\r\n"
                    + "X-Forwarded-Proto: https\r\n").startsWith("HTTP/1.1 200"), "not a's origin, kept");
            assertTrue(handshakeOn(proxy, "Origin: https://b.example\r\n").startsWith("HTTP/1.1 403"),
                    "nothing forwarded: the connection's own origin");
        }
    }

    /** A handshake on {@code socket} with the extra header lines given, and the head of its answer (body read). */
    private String handshakeOn(Socket socket, String headers) throws IOException {
        byte[] body = HANDSHAKE.getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /cometd HTTP/1.1\r\nHost: 127.0.0.1:" + netty.port() + "\r\nContent-Type: application/json\r\n"
                + headers + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        InputStream in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        while (head.indexOf("\r\n\r\n") < 0) {
            int b = in.read();
            if (b < 0) {
                return head.toString();
            }
            head.append((char) b);
        }
        Matcher length = Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
        if (length.find()) {
            in.readNBytes(Integer.parseInt(length.group(1)));
        }
        return head.toString();
    }

    @Test
    void theStandardForwardedHeaderIsReadTheSameWay() throws Exception {
        start(ServerOptions.builder().maxSessionsPerAddress(1).build(), "127.0.0.1");

        HttpResponse<String> first = handshake(Map.of("Origin", PUBLIC_ORIGIN, "Forwarded", "for=192.0.2.50;"
                + "proto=http;host=evil.example, for=\"203.0.113.7:4711\";proto=https;host=" + PUBLIC_HOST));
        HttpResponse<String> second = handshake(Map.of("Forwarded",
                "for=192.0.2.51, for=203.0.113.7;proto=https;host=" + PUBLIC_HOST));

        assertTrue(successful(first), first.body());
        assertEquals("203.0.113.7", sessionAddress(first));
        assertEquals(4711, bayeux.getSession((String) reply(first).get("clientId")).getRequest().getRemoteAddress()
                .getPort(), "the port the proxy forwarded");
        assertTrue(cookie(first).contains("; Secure"), "the proxy's element (https), not the client's: "
                + cookie(first));
        assertTrue(refusedAsTooManyFromOneAddress(second), "the same client, behind another claim: " + second.body());
    }

    @Test
    void forwardedHeadersFromAPeerThatIsNotTheTrustedProxyChangeNothing() throws Exception {
        start(ServerOptions.builder().maxSessionsPerAddress(1).build(), "192.0.2.1", "10.0.0.0/8", "::1");

        assertEquals(403, handshakeThroughProxy("203.0.113.7").statusCode(),
                "a page on another origin claiming to be forwarded");
        HttpResponse<String> handshake = handshake(Map.of("X-Forwarded-Proto", "https", "X-Forwarded-For",
                "203.0.113.7", "Forwarded", "for=203.0.113.7;proto=https"));
        assertTrue(successful(handshake), handshake.body());
        assertEquals("127.0.0.1", sessionAddress(handshake), "the TCP peer");
        assertFalse(cookie(handshake).contains("Secure"), cookie(handshake));
        assertFalse(bayeux.getSession((String) reply(handshake).get("clientId")).getRequest().isSecure());
        HttpResponse<String> another = handshake(Map.of("X-Forwarded-For", "198.51.100.9"));
        assertTrue(refusedAsTooManyFromOneAddress(another), "counted under 127.0.0.1 as the first: " + another.body());
    }

    @Test
    void malformedForwardedValuesFallBackToTheConnection() throws Exception {
        start(ServerOptions.defaults(), "127.0.0.1");
        List<String> garbage = new ArrayList<>(List.of("unknown", "_hidden", "garbage", "cafe", "proxy.example.com",
                "unix:/var/run/nginx.sock", "203.0.113.7:99999", "203.0.113.7:x", "[2001:db8::1", "1.2.3",
                ";;;", "\"", "9".repeat(6000), ",".repeat(3000)));
        StringBuilder many = new StringBuilder();
        for (int i = 0; many.length() < 6000; i++) {
            many.append("unknown, _x").append(i).append(", ");
        }
        garbage.add(many + "garbage");

        for (String value : garbage) {
            String shown = value.length() > 40 ? value.substring(0, 40) + "..." : value;
            for (String header : List.of("X-Forwarded-For", "Forwarded")) {
                String forwarded = header.equals("Forwarded") && !value.startsWith(",") ? "for=" + value : value;
                Map<String, String> headers = new LinkedHashMap<>(Map.of(header, forwarded));
                if (value.length() < 100) { // the request's headers are bounded at 8 KB in all
                    headers.putAll(Map.of("X-Forwarded-Proto", value, "X-Forwarded-Host", value,
                            "X-Forwarded-Port", value));
                }
                HttpResponse<String> handshake = handshake(headers);
                assertTrue(successful(handshake), header + ": " + shown + ": " + handshake.body());
                assertEquals("127.0.0.1", sessionAddress(handshake), header + ": " + shown);
                assertFalse(cookie(handshake).contains("Secure"), header + ": " + shown);
            }
        }
        StringBuilder longList = new StringBuilder();
        for (int i = 0; longList.length() < 6000; i++) {
            longList.append("192.0.2.").append(i % 250).append(", ");
        }
        HttpResponse<String> manyEntries = handshakeThroughProxy(longList + "203.0.113.7");
        assertTrue(successful(manyEntries), "many entries: the client's is the rightmost");
        assertEquals("203.0.113.7", sessionAddress(manyEntries));
    }

    @Test
    void aWebSocketUpgradeThroughTheTrustedProxyIsReadTheSameWay() throws Exception {
        start(ServerOptions.defaults(), "127.0.0.1");
        LinkedBlockingQueue<String> frames = new LinkedBlockingQueue<>();

        WebSocket socket = upgradeThroughProxy(frames).get(10, TimeUnit.SECONDS);
        socket.sendText(HANDSHAKE, true);
        String frame = frames.poll(10, TimeUnit.SECONDS);
        assertNotNull(frame, "the handshake reply");
        String clientId = (String) Json.array(frame).get(0).get("clientId");

        assertEquals("203.0.113.7", addressOf(clientId));
        assertTrue(bayeux.getSession(clientId).getRequest().isSecure());
        socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(10, TimeUnit.SECONDS);
    }

    @Test
    void aWebSocketUpgradeFromAPeerThatIsNotTrustedKeepsTheOriginCheck() throws Exception {
        start(ServerOptions.defaults(), "192.0.2.1");

        CompletionException refused = assertThrows(CompletionException.class,
                () -> upgradeThroughProxy(new LinkedBlockingQueue<>()).join());

        assertTrue(refused.getCause() instanceof WebSocketHandshakeException, String.valueOf(refused.getCause()));
        assertEquals(403, ((WebSocketHandshakeException) refused.getCause()).getResponse().statusCode());
    }

    private CompletableFuture<WebSocket> upgradeThroughProxy(LinkedBlockingQueue<String> frames) {
        return HTTP.newWebSocketBuilder()
                .header("Origin", PUBLIC_ORIGIN)
                .header("X-Forwarded-Proto", "https")
                .header("X-Forwarded-Host", PUBLIC_HOST)
                .header("X-Forwarded-For", "192.0.2.50, 203.0.113.7")
                .buildAsync(URI.create("ws://127.0.0.1:" + netty.port() + "/cometd"), new TextMessages(frames));
    }

    @Test
    void aTrustedProxysConnectionsAreNotCountedPerAddress() throws Exception {
        start(ServerOptions.builder().maxConnectionsPerAddress(1).build(), "127.0.0.1");
        List<Socket> open = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Socket socket = connect();
                open.add(socket);
                assertTrue(get(socket).startsWith("HTTP/1.1 404"), "connection " + (i + 1) + " is served");
            }
        } finally {
            for (Socket socket : open) {
                socket.close();
            }
        }
        assertEquals(0L, bayeux.getRefusals().get(Limit.CONNECTIONS_PER_ADDRESS));
    }

    @Test
    void anUntrustedPeersConnectionsAreCountedPerAddress() throws Exception {
        start(ServerOptions.builder().maxConnectionsPerAddress(1).build(), "192.0.2.1");
        try (Socket first = connect()) {
            assertTrue(get(first).startsWith("HTTP/1.1 404"));
            try (Socket second = connect()) {
                assertEquals("", get(second), "closed as it opened");
            }
        }
        assertEquals(1L, bayeux.getRefusals().get(Limit.CONNECTIONS_PER_ADDRESS));
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket(InetAddress.getByName("127.0.0.1"), netty.port());
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** A request for a page outside the mount (404), and what came back before the first blank line or the end. */
    private static String get(Socket socket) throws IOException {
        StringBuilder head = new StringBuilder();
        try {
            OutputStream out = socket.getOutputStream();
            out.write("GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            int b;
            while (head.indexOf("\r\n\r\n") < 0 && (b = in.read()) >= 0) {
                head.append((char) b);
            }
        } catch (IOException x) {
            // reset: closed as it opened
        }
        return head.toString();
    }

    @Test
    void proxiesAreNamedByAddressOrRangeAsOnJetty() {
        BayeuxServer server = BayeuxServer.create(ServerOptions.defaults());
        try {
            WeftNetty.Builder builder = WeftNetty.on(server);
            assertEquals("no trusted proxy named: give the proxy's IP address or range",
                    assertThrows(IllegalArgumentException.class, () -> builder.trustProxies(List.of())).getMessage());
            IllegalArgumentException name = assertThrows(IllegalArgumentException.class,
                    () -> builder.trustProxies(List.of("proxy.example.com")));
            assertTrue(name.getMessage().contains("never a host name") && name.getMessage().contains(
                    "proxy.example.com"), name.getMessage());
            assertThrows(IllegalArgumentException.class, () -> builder.trustProxies(List.of("10.0.0.0/33")));
            assertThrows(NullPointerException.class, () -> builder.trustProxies(null));
            builder.trustProxies(List.of("10.0.0.5", "fd00::/8", "192.168.0.0/16"));
        } finally {
            server.close();
        }
    }
}
