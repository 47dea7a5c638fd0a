package io.weft.examples.chat;

import io.weft.bayeux.Message;
import io.weft.bayeux.Promise;
import io.weft.client.BayeuxClient;
import io.weft.client.BayeuxClientBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/** Weft's Java clients (load-client's io.weft.client) for the tests: one shared HttpClient and WebSocketClient. */
final class JavaClients implements AutoCloseable {
    private final HttpClient http = new HttpClient();
    private final WebSocketClient webSocket = new WebSocketClient(http);
    private final List<BayeuxClient> clients = new ArrayList<>();

    JavaClients() throws Exception {
        http.setHttpCookieStore(new HttpCookieStore.Empty());
        http.start();
        webSocket.start();
    }

    /** A handshaken client of {@code url} speaking only {@code transport} ({@code websocket} or {@code long-polling}). */
    BayeuxClient connect(String url, String transport) throws Exception {
        BayeuxClientBuilder builder = BayeuxClient.builder(url);
        if (transport.equals("websocket")) {
            builder.webSocket(webSocket);
        } else {
            builder.longPolling(http);
        }
        BayeuxClient client = builder.build();
        clients.add(client);
        await(client::handshake);
        return client;
    }

    HttpClient http() {
        return http;
    }

    /** Waits (bounded) for the reply of a call that takes a promise; a refused request throws. */
    static Message await(Consumer<Promise<Message>> call) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        call.accept(Promise.from(reply::complete, reply::completeExceptionally));
        try {
            return reply.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException x) {
            throw x.getCause() instanceof Exception cause ? cause : x;
        }
    }

    @Override
    public void close() throws Exception {
        for (BayeuxClient client : clients) {
            client.disconnect();
        }
        webSocket.stop();
        http.stop();
    }
}
