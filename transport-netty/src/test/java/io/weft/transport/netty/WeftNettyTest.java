package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.weft.server.api.BayeuxServer;
import io.weft.server.api.ServerOptions;
import io.weft.server.testing.Await;
import io.weft.server.testing.Json;
import io.weft.transport.netty.testing.NettyLeaks;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Netty mount end to end with the JDK's own clients: a handshake and a message over long-polling and over a
 * websocket, a long-polling publisher's own copy in its publish's answer, the fallback beside Bayeux on the same port,
 * and what it refuses. The full behaviour and hostile suites run over this mount in transport-websocket.
 */
@Timeout(30)
class WeftNettyTest {
    @RegisterExtension
    static final NettyLeaks leaks = new NettyLeaks();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private BayeuxServer bayeux;
    private WeftNetty netty;

    private void start(ServerOptions options, Fallback fallback) throws Exception {
        bayeux = BayeuxServer.create(options);
        netty = WeftNetty.on(bayeux).host("127.0.0.1").port(0).fallback(fallback).start();
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

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + netty.port() + path);
    }

    private HttpResponse<String> post(String json) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri("/cometd")).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static final String HANDSHAKE = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
            + "\"supportedConnectionTypes\":[\"websocket\",\"long-polling\"]}]";

    @Test
    void aClientHandshakesSubscribesAndReceivesOverLongPolling() throws Exception {
        start(ServerOptions.defaults(), Fallback.NOT_FOUND);
        HttpResponse<String> handshake = post(HANDSHAKE);
        assertEquals(200, handshake.statusCode(), handshake.body());
        Map<String, Object> reply = Json.array(handshake.body()).get(0);
        assertEquals(true, reply.get("successful"));
        assertEquals(List.of("long-polling", "callback-polling", "eventsource", "websocket"),
                reply.get("supportedConnectionTypes"));
        String clientId = (String) reply.get("clientId");
        assertEquals(true, Json.array(post(message(clientId, "/meta/subscribe", "\"subscription\":\"/room\"")).body())
                .get(0).get("successful"));
        post(message(clientId, "/meta/connect", "\"connectionType\":\"long-polling\",\"advice\":{\"timeout\":0}"));
        CompletableFuture<HttpResponse<String>> held = HTTP.sendAsync(HttpRequest.newBuilder(uri("/cometd"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        message(clientId, "/meta/connect", "\"connectionType\":\"long-polling\""))).build(),
                HttpResponse.BodyHandlers.ofString());
        bayeux.getChannel("/room").publish(null, "hello");
        List<Map<String, Object>> delivered = Json.array(held.get(10, TimeUnit.SECONDS).body());
        assertEquals("hello", delivered.get(0).get("data"), delivered.toString());
        assertEquals("/meta/connect", delivered.get(delivered.size() - 1).get("channel"));
    }

    @Test
    void aLongPollingPublishersOwnCopyLeavesWithItsPublishsAnswerWhileItsPollStaysHeld() throws Exception {
        start(ServerOptions.defaults(), Fallback.NOT_FOUND);
        String clientId = (String) Json.array(post(HANDSHAKE).body()).get(0).get("clientId");
        post(message(clientId, "/meta/subscribe", "\"subscription\":\"/room\""));
        post(message(clientId, "/meta/connect", "\"connectionType\":\"long-polling\",\"advice\":{\"timeout\":0}"));
        CompletableFuture<HttpResponse<String>> held = HTTP.sendAsync(HttpRequest.newBuilder(uri("/cometd"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        message(clientId, "/meta/connect", "\"connectionType\":\"long-polling\""))).build(),
                HttpResponse.BodyHandlers.ofString());
        Await.until(Duration.ofSeconds(10), () -> bayeux.getStats().heldConnects(), n -> n == 1,
                "the engine holds the connect");

        List<Map<String, Object>> answer = Json.array(post(message(clientId, "/room", "\"data\":\"mine\"")).body());

        assertEquals(2, answer.size(), answer.toString());
        assertEquals("/room", answer.get(0).get("channel"));
        assertEquals("mine", answer.get(0).get("data"));
        assertEquals(true, answer.get(1).get("successful"), "then the publish's own reply");
        assertEquals(1, bayeux.getStats().heldConnects(), "the poll is still held");
        assertFalse(held.isDone());
        // The held poll gets the next message only: the client's own copy left once.
        bayeux.getChannel("/room").publish(null, "next");
        List<Map<String, Object>> polled = Json.array(held.get(10, TimeUnit.SECONDS).body());
        assertEquals(List.of("next"), polled.stream().filter(m -> "/room".equals(m.get("channel")))
                .map(m -> m.get("data")).toList(), polled.toString());
        assertEquals("/meta/connect", polled.get(polled.size() - 1).get("channel"));
    }

    private static String message(String clientId, String channel, String fields) {
        return "[{\"channel\":\"" + channel + "\",\"clientId\":\"" + clientId + "\"," + fields + "}]";
    }

    @Test
    void aClientHandshakesSubscribesAndReceivesOverAWebSocket() throws Exception {
        start(ServerOptions.defaults(), Fallback.NOT_FOUND);
        LinkedBlockingQueue<String> frames = new LinkedBlockingQueue<>();
        WebSocket socket = HTTP.newWebSocketBuilder().buildAsync(URI.create("ws://127.0.0.1:" + netty.port()
                + "/cometd"), new TextMessages(frames)).get(10, TimeUnit.SECONDS);
        socket.sendText(HANDSHAKE, true);
        String clientId = (String) Json.array(frames.poll(10, TimeUnit.SECONDS)).get(0).get("clientId");
        socket.sendText(message(clientId, "/meta/subscribe", "\"subscription\":\"/room\""), true);
        assertEquals(true, Json.array(frames.poll(10, TimeUnit.SECONDS)).get(0).get("successful"));
        socket.sendText(message(clientId, "/room", "\"data\":\"over the socket\""), true);
        boolean delivered = false;
        for (int i = 0; i < 3 && !delivered; i++) {
            String frame = frames.poll(10, TimeUnit.SECONDS);
            delivered = frame != null && frame.contains("over the socket");
        }
        assertTrue(delivered, "the publish came back to its subscriber");
        socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(10, TimeUnit.SECONDS);
    }

    @Test
    void aWebSocketThatSendsNothingIsClosedAsIdle() throws Exception {
        // idle timeout: timeout + interval + maxInterval = 600 ms
        start(ServerOptions.builder().timeout(300).interval(0).maxInterval(300).build(), Fallback.NOT_FOUND);
        CompletableFuture<String> closed = new CompletableFuture<>();
        HTTP.newWebSocketBuilder().buildAsync(URI.create("ws://127.0.0.1:" + netty.port() + "/cometd"),
                new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
                        closed.complete(statusCode + " " + reason);
                        return null;
                    }
                }).get(10, TimeUnit.SECONDS);
        assertEquals("1001 idle timeout", closed.get(10, TimeUnit.SECONDS));
    }

    @Test
    void otherPathsGoToTheFallbackOnTheSamePort() throws Exception {
        start(ServerOptions.defaults(), (request, responder) -> responder.respond(
                Fallback.text(HttpResponseStatus.OK, "page " + request.uri())));
        HttpResponse<String> page = HTTP.send(HttpRequest.newBuilder(uri("/index.html")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, page.statusCode());
        assertEquals("page /index.html", page.body());
        assertEquals(200, post(HANDSHAKE).statusCode(), "and Bayeux on its path");
    }

    @Test
    void aBodyLargerThanMaxMessageSizeIs413() throws Exception {
        start(ServerOptions.defaults(), Fallback.NOT_FOUND);
        HttpResponse<String> refused = post("[\"" + "x".repeat(70_000) + "\"]");
        assertEquals(413, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("maxMessageSize"), refused.body());
    }
}
