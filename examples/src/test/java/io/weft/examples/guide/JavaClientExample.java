package io.weft.examples.guide;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.client.BayeuxClient;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/** The user guide's Java client snippet: joins a chat room, says hello, and returns the first line it hears. */
public final class JavaClientExample {
    private JavaClientExample() {
    }

    public static Map<String, Object> sayHello(String url) throws Exception {
        // tag::java-client[]
        HttpClient http = new HttpClient();
        http.setHttpCookieStore(new HttpCookieStore.Empty()); // each BayeuxClient keeps its own cookies
        http.start();
        WebSocketClient webSocket = new WebSocketClient(http);
        webSocket.start();

        BayeuxClient client = BayeuxClient.builder(url) // http://localhost:8080/cometd
                .webSocket(webSocket)                   // preferred
                .longPolling(http)                      // the fallback
                .build();
        BlockingQueue<Message> heard = new LinkedBlockingQueue<>();
        await(client::handshake);
        await(reply -> client.subscribe("/chat/lobby", heard::add, reply));
        await(reply -> client.publish("/service/chat/join", Map.of("room", "lobby", "name", "java"), reply));
        client.publish("/chat/lobby", Map.of("text", "Hello from Java"));
        // end::java-client[]
        try {
            while (true) {
                Message message = heard.poll(10, TimeUnit.SECONDS);
                if (message == null) {
                    throw new IllegalStateException("nothing heard in 10 s");
                }
                if ("chat".equals(message.getDataAsMap().get("type"))) {
                    return message.getDataAsMap();
                }
            }
        } finally {
            await(client::disconnect);
            webSocket.stop();
            http.stop();
        }
    }

    // tag::await[]
    /** Waits for a reply: fine on a main thread, never inside a listener or a promise (they run on I/O threads). */
    static Message await(Consumer<Promise<Message>> call) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        call.accept(Promise.from(reply::complete, reply::completeExceptionally));
        try {
            return reply.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException x) {
            throw x.getCause() instanceof Exception cause ? cause : x; // a ReplyException if the server said no
        }
    }
    // end::await[]
}
