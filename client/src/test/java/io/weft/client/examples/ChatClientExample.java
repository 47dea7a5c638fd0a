package io.weft.client.examples;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.client.BayeuxClient;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/** The README's client example, compiled and run by a test. */
public final class ChatClientExample {
    private ChatClientExample() {
    }

    /** Joins {@code /chat/lobby} at {@code url}, says hello, and returns the first message heard there. */
    public static Object helloLobby(String url) throws Exception {
        // snippet:start
        HttpClient http = new HttpClient();
        http.setHttpCookieStore(new HttpCookieStore.Empty()); // each BayeuxClient keeps its own cookies
        http.start();
        WebSocketClient ws = new WebSocketClient(http);
        ws.start();

        BayeuxClient client = BayeuxClient.builder(url) // e.g. http://localhost:8080/cometd
                .webSocket(ws)      // preferred
                .longPolling(http)  // used when the WebSocket upgrade fails
                .build();
        BlockingQueue<Object> heard = new LinkedBlockingQueue<>();

        client.handshake(Promise.from(
                reply -> System.out.println("connected as " + client.getId()),
                failure -> System.out.println("handshake failed: " + failure)));
        // Sent once the handshake succeeds; one batch, one request.
        client.batch(() -> {
            client.subscribe("/chat/lobby", message -> heard.add(message.getData()));
            client.publish("/chat/lobby", Map.of("user", "ada", "text", "hello"), Promise.from(
                    (Message reply) -> { },
                    failure -> System.out.println("not published: " + failure)));
        });
        Object first = heard.poll(10, TimeUnit.SECONDS);

        client.disconnect();
        ws.stop();
        http.stop();
        // snippet:end
        return first;
    }
}
