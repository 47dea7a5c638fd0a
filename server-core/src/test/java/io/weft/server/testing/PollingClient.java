package io.weft.server.testing;

import io.weft.server.api.BayeuxServer;
import io.weft.server.spi.InMemoryTransport;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A scripted Bayeux client over the in-memory polling transport: sends raw JSON and returns the parsed reply
 * array, so protocol tests read as conversations.
 */
public final class PollingClient {
    private final InMemoryTransport transport;
    private final String browserId;
    private String clientId;
    private int nextId = 1;
    private final AtomicLong bytesReceived = new AtomicLong();

    public PollingClient(InMemoryTransport transport, String browserId) {
        this.transport = transport;
        this.browserId = browserId;
    }

    public static PollingClient of(BayeuxServer server, String browserId) {
        return new PollingClient(InMemoryTransport.polling(server), browserId);
    }

    /** A client of {@code browser} that has handshaken and had its first /meta/connect answered. */
    public static PollingClient connected(BayeuxServer server, String browser) {
        PollingClient client = of(server, browser);
        client.handshake();
        client.connectNow();
        return client;
    }

    public String clientId() {
        return clientId;
    }

    /** Sends a raw body and waits for the response (which must not be held). */
    public List<Map<String, Object>> send(String body) {
        return await(sendAsync(body));
    }

    public CompletableFuture<String> sendAsync(String body) {
        CompletableFuture<String> response = transport.request(browserId, body);
        response.thenAccept(text -> bytesReceived.addAndGet(text.getBytes(StandardCharsets.UTF_8).length));
        return response;
    }

    /** The bytes of the responses to this client's requests so far (of {@link #sendAsync} and what uses it). */
    public long bytesReceived() {
        return bytesReceived.get();
    }

    /** A /meta/connect that the server may hold, as an exchange the client can abandon. */
    public InMemoryTransport.Exchange connectExchange() {
        return transport.exchange(browserId, connectBody(false));
    }

    private String connectBody(boolean now) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + clientId
                + (now ? "\",\"advice\":{\"timeout\":0}" : "\"") + ",\"id\":\"" + (nextId++) + "\"}]";
    }

    /** Acts for another client's session: the hijack attempt. */
    public void useClientId(String clientId) {
        this.clientId = clientId;
    }

    public static List<Map<String, Object>> await(CompletableFuture<String> response) {
        try {
            return Json.array(response.get(5, TimeUnit.SECONDS));
        } catch (Exception x) {
            throw new AssertionError("no response within 5 s", x);
        }
    }

    /** Handshakes and remembers the clientId. */
    public Map<String, Object> handshake() {
        List<Map<String, Object>> replies = send("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"],\"id\":\"" + (nextId++) + "\"}]");
        Map<String, Object> reply = replies.get(0);
        clientId = (String) reply.get("clientId");
        return reply;
    }

    /** A /meta/connect with advice timeout 0, answered at once. */
    public List<Map<String, Object>> connectNow() {
        return send(connectBody(true));
    }

    /** A /meta/connect that the server may hold. */
    public CompletableFuture<String> connect() {
        return sendAsync(connectBody(false));
    }

    public Map<String, Object> subscribe(String channel) {
        return send("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"" + channel + "\",\"clientId\":\""
                + clientId + "\",\"id\":\"" + (nextId++) + "\"}]").get(0);
    }

    public Map<String, Object> unsubscribe(String channel) {
        return send("[{\"channel\":\"/meta/unsubscribe\",\"subscription\":\"" + channel + "\",\"clientId\":\""
                + clientId + "\",\"id\":\"" + (nextId++) + "\"}]").get(0);
    }

    public List<Map<String, Object>> publish(String channel, String dataJson) {
        return send("[{\"channel\":\"" + channel + "\",\"data\":" + dataJson + ",\"clientId\":\"" + clientId
                + "\",\"id\":\"" + (nextId++) + "\"}]");
    }

    public Map<String, Object> disconnect() {
        return send("[{\"channel\":\"/meta/disconnect\",\"clientId\":\"" + clientId + "\",\"id\":\"" + (nextId++)
                + "\"}]").get(0);
    }
}
